package server

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/approval"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Approvals (docs/approvals.md): a call the policy decides hold is
// recorded as a hold gate step, parked in the approvers' queue, and
// answered once an approver other than the developer decides it, or
// denied when its wait runs out, always before the hook's own timeout:
// the resolution is the call's gate step, right before its pre-event.

// WaitHeader is how long, in seconds, the hook waits for the server's
// answer (record-step --server-wait). A held call waits at most that less
// holdMargin, so its denial reaches the hook before it gives up.
const WaitHeader = hookpost.WaitHeader

// holdMargin is what a held call leaves of the hook's wait for the
// resolution's append, the answer and the way back.
const holdMargin = 5 * time.Second

// DefaultApprovalWait is the longest a held call waits for an approver
// when Config.ApprovalWait is 0.
const DefaultApprovalWait = 5 * time.Minute

// Roles a request's actor may hold (Config.Actor).
const (
	RoleApprover = "approver"
)

// Error codes of the approvals' routes.
const (
	errApprovalUnknown = "APPROVAL_UNKNOWN"  // 404: no such held call waiting
	errApprovalExpired = "APPROVAL_EXPIRED"  // 409: its wait ran out, it was denied
	errApprovalSelf    = "APPROVAL_SELF"     // 403: the developer who asked
	errApprovalInput   = "APPROVAL_INPUT"    // 409: other input digests than the call's
	errApprovalBody    = "APPROVAL_INVALID"  // 400: the decision's body cannot be read
	errNoIdentities    = "IDENTITIES_NEEDED" // 401: approvals need authenticated approvers
)

var approvalStatus = map[string]int{
	errApprovalUnknown: http.StatusNotFound, errApprovalExpired: http.StatusConflict,
	errApprovalSelf: http.StatusForbidden, errApprovalInput: http.StatusConflict, errNoIdentities: http.StatusUnauthorized,
}

// Actor is who a request proves to be and the roles they hold; "" when
// it proves nobody. It is the one authorization seam of the approvals'
// routes, and names the developer a held call was asked by.
type Actor func(r *http.Request) (name string, roles []string)

// approver is who decides a held call: a name, in a tenant ("" outside
// a fleet).
type approver struct {
	name, tenant string
	p            *fleet.Principal // on a fleet server: the principal, for the resolution's actor
}

// authorize returns the request's approver: on a fleet server
// (Config.Fleet) the principal its credential or OIDC token proves, with
// the fleet's approver role; else the Actor seam's (--approvers). On a
// refusal it has answered, and ok is false.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) (a approver, ok bool) {
	if s.cfg.Fleet != nil {
		p, ok := s.authenticate(w, r, true)
		if !ok {
			return a, false
		}
		if p.Subject == "" || !p.Has(fleet.Approver) {
			s.fail(w, r, errForbidden, "deciding held calls needs a person with the approver role")
			return a, false
		}
		return approver{p.Subject, p.Tenant, &p}, true
	}
	if s.cfg.Actor == nil {
		s.fail(w, r, errNoIdentities, "approvals need approvers the server can authenticate: start logbook-server with --approvers FILE (or a fleet: --fleet)")
		return a, false
	}
	name, roles := s.cfg.Actor(r)
	if name == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="logbook"`)
		s.fail(w, r, errUnauthorized, "send Authorization: Bearer TOKEN of an approver")
		return a, false
	}
	if !slices.Contains(roles, RoleApprover) {
		s.fail(w, r, errForbidden, "this route needs the role "+RoleApprover)
		return a, false
	}
	return approver{name: name}, true
}

// requester is who sent the held call: the fleet's principal, else the
// Actor seam's name ("": not known).
func (s *Server) requester(r *http.Request) (name, tenant string) {
	if p, ok := PrincipalOf(r); ok && p.Subject != "" {
		return p.Subject, p.Tenant
	}
	if s.cfg.Actor != nil {
		name, _ = s.cfg.Actor(r)
	}
	return name, ""
}

// ReadApprovers is ApproverTokens of the file at path (logbook-server
// --approvers), read under a 1 MiB limit.
func ReadApprovers(path string) (Actor, error) {
	b, err := readlimit.Small(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--approvers: %w", err)
	}
	a, err := ApproverTokens(b)
	if err != nil {
		return nil, fmt.Errorf("--approvers %s: %w", path, err)
	}
	return a, nil
}

// ApproverTokens reads an approvers file (logbook-server --approvers):
// one approver a line, "NAME TOKEN", '#' comments and blank lines
// ignored, and returns the Actor that knows them by their bearer token.
// Names are 1-64 of A-Z a-z 0-9 . _ @ -; tokens at least 16 bytes.
func ApproverTokens(file []byte) (Actor, error) {
	type who struct {
		sum  [32]byte
		name string
	}
	var all []who
	sc := bufio.NewScanner(bytes.NewReader(file))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !approverName(f[0]) || len(f[1]) < 16 {
			return nil, fmt.Errorf("line %d: want NAME TOKEN (a name of 1-64 of A-Z a-z 0-9 . _ @ -, a token of at least 16 bytes)", n)
		}
		all = append(all, who{sha256.Sum256([]byte(f[1])), f[0]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, errors.New("no approver in the file")
	}
	return func(r *http.Request) (string, []string) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return "", nil
		}
		got := sha256.Sum256([]byte(tok))
		name := ""
		for _, a := range all { // every entry compared: the time does not say which matched
			if subtle.ConstantTimeCompare(got[:], a.sum[:]) == 1 {
				name = a.name
			}
		}
		if name == "" {
			return "", nil
		}
		return name, []string{RoleApprover}
	}, nil
}

func approverName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._@-", c) >= 0) {
			return false
		}
	}
	return true
}

func (s *Server) approvalRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/v1/approvals", s.method("GET", s.listApprovals))
	mux.HandleFunc("/v1/approvals/{id}", s.approvalOne)
}

func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	a, ok := s.authorize(w, r)
	if !ok {
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, map[string]any{"approvals": s.Approvals(a.tenant)})
}

// Approvals are the held calls waiting in tenant ("": outside a fleet),
// oldest first: the approvers' queue (the console's page too).
func (s *Server) Approvals(tenant string) []approval.Request {
	all := s.approvals.List()
	out := all[:0]
	for _, q := range all {
		if q.Tenant == tenant {
			out = append(out, q)
		}
	}
	return out
}

// decisionBody is what an approver posts: the decision, and the input
// digests of the call they were shown (the approval is bound to them).
type decisionBody struct {
	Decision string   `json:"decision"` // "approve" or "deny"
	Inputs   []string `json:"inputsSha256"`
	Reason   string   `json:"reason"`
}

func (s *Server) approvalOne(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case "GET", "HEAD":
		a, ok := s.authorize(w, r)
		if !ok {
			return
		}
		req, ok := s.approvals.Get(r.PathValue("id"))
		if !ok || req.Tenant != a.tenant {
			s.fail(w, r, errApprovalUnknown, approval.ErrUnknown.Error())
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		writeJSON(w, http.StatusOK, req)
	case "POST":
		a, ok := s.authorize(w, r)
		if !ok {
			return
		}
		var d decisionBody
		if err := decodeJSON(w, r, 16<<10, &d); err != nil || (d.Decision != "approve" && d.Decision != "deny") {
			s.fail(w, r, errApprovalBody, `want {"decision": "approve" or "deny", "inputsSha256": [the call's input digests], "reason": optional}`)
			return
		}
		if d.Inputs == nil {
			d.Inputs = []string{}
		}
		req, err := s.Decide(r.PathValue("id"), a, d.Decision == "approve", d.Inputs, d.Reason)
		if err != nil {
			code := map[error]string{approval.ErrUnknown: errApprovalUnknown, approval.ErrExpired: errApprovalExpired,
				approval.ErrSelf: errApprovalSelf, approval.ErrInput: errApprovalInput, approval.ErrNoName: errForbidden}[err]
			s.fail(w, r, code, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"id": req.ID, "decision": d.Decision, "approver": a.name})
	default:
		w.Header().Set("Allow", "GET, POST")
		s.fail(w, r, errMethod, fmt.Sprintf("%s %s: only GET or POST", r.Method, r.URL.Path))
	}
}

// Decide is an approver's decision on held call id (the route's, and the
// console's): only in the approver's own tenant (another's is unknown).
func (s *Server) Decide(id string, a approver, approve bool, inputs []string, reason string) (approval.Request, error) {
	if req, ok := s.approvals.Get(id); !ok || req.Tenant != a.tenant {
		return approval.Request{}, approval.ErrUnknown
	}
	req, err := s.approvals.Decide(id, a.name, approve, inputs, redact.Clip(redact.String(reason), 512), s.cfg.Now())
	if err == nil && a.p != nil {
		s.deciders.Store(id, *a.p)
	}
	if err == nil {
		s.cfg.Log.Info("approval", "id", req.ID, "session", req.Session, "approve", approve, "approver", a.name, "tenant", a.tenant)
	}
	return req, err
}

// holdCalls wraps the gate put in o by gate.Wire: a call it decides hold
// (enforced) is parked until decided (hold), and the gate step recorded
// before the call is its resolution.
func (s *Server) holdCalls(w http.ResponseWriter, r *http.Request, o *recorder.Options, out **gate.Verdict, cwd string) {
	inner := o.Gate
	if inner == nil {
		return
	}
	o.Gate = func(ev hookevent.Event) *chain.Step {
		st := inner(ev)
		v := *out
		if st == nil || v == nil || v.Decision != orgpolicy.Hold || !v.Enforced {
			return st
		}
		return s.holdCall(w, r, ev, v, cwd)
	}
}

// holdWait is how long a held call of this request may wait: the
// server's ApprovalWait, within what the hook said it waits (WaitHeader)
// less holdMargin. A hook that says nothing cannot wait: its call is
// denied at once (a hook that gave up would let the harness run it, or
// block it silently).
func (s *Server) holdWait(r *http.Request) time.Duration {
	secs, err := strconv.Atoi(r.Header.Get(WaitHeader))
	if err != nil || secs <= 0 {
		return 0
	}
	wait := min(time.Duration(min(secs, 24*3600))*time.Second-holdMargin, s.cfg.ApprovalWait)
	return max(wait, 0)
}

// holdCall records the request for approval (v's gate step, decision hold,
// naming the approval), parks the call in the queue, waits for an
// approver or the end of its wait, and returns the resolution's gate
// step; v becomes the resolution's verdict (allow or deny), which the
// hook's answer says. The hook request's append slot is given back while
// it waits: a held call must not hold up other sessions' events.
func (s *Server) holdCall(w http.ResponseWriter, r *http.Request, ev hookevent.Event, v *gate.Verdict, cwd string) *chain.Step {
	wait := s.holdWait(r)
	now := s.cfg.Now()
	tool, _ := ev.Step.Data.GetString("tool")
	id, _ := ev.Step.Data.GetString("toolUseId")
	requester, tenant := s.requester(r)
	req := approval.Request{ID: approval.NewID(), Tenant: tenant, Session: strings.Clone(ev.Session), Harness: ev.Harness, Tool: strings.Clone(tool),
		ToolUseID: strings.Clone(id), Inputs: slices.Clone(ev.Step.Inputs), Summary: strings.Clone(ev.Step.Summary),
		Rule: v.Rule, Reason: v.Reason, Requester: requester, Created: now, Expires: now.Add(wait)}
	if req.Inputs == nil {
		req.Inputs = []string{}
	}
	asked := gate.Asked(v, req.ID, instant.Format(req.Expires), requester)
	if err := s.appendOne(r, ev, cwd, asked.Step); err != nil {
		// Not recorded: the call cannot be approved against a request
		// the record lacks. Denied, and the deny is what is recorded.
		s.cfg.Log.Error("hold not recorded", "session", ev.Session, "err", err)
		return resolve(v, "", orgpolicy.Deny, "", "its request for approval could not be recorded ("+err.Error()+")")
	}
	s.cfg.Log.Info("held", "session", ev.Session, "approval", req.ID, "tool", tool, "wait", wait)
	decided := s.approvals.Open(req)
	if wait > 0 {
		<-s.slots
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + 30*time.Second))
		t := time.NewTimer(wait)
		select {
		case <-decided:
		case <-t.C:
		case <-r.Context().Done(): // the hook gave up: nothing will run the call
		}
		t.Stop()
		s.slots <- struct{}{}
	}
	d := s.approvals.Close(req.ID, s.cfg.Now())
	who, _ := s.deciders.LoadAndDelete(req.ID)
	switch d.Outcome {
	case orgpolicy.Approved:
		return s.attest(resolve(v, req.ID, orgpolicy.Allow, d.Approver, "approved by "+d.Approver+reasonSuffix(d.Reason)), who)
	case orgpolicy.Refused:
		return s.attest(resolve(v, req.ID, orgpolicy.Deny, d.Approver, "denied by approver "+d.Approver+reasonSuffix(d.Reason)), who)
	}
	why := fmt.Sprintf("no approver decided within %v", wait.Round(time.Second))
	if wait == 0 {
		why = "this hook cannot wait for an approver (it sent no " + WaitHeader + "; record-step --server-wait)"
	}
	return resolve(v, req.ID, orgpolicy.Deny, "", why)
}

// attest names the approver as the resolution's attested actor (the
// fleet's logbook.actor member) when a fleet principal decided.
func (s *Server) attest(st *chain.Step, who any) *chain.Step {
	if p, ok := who.(fleet.Principal); ok {
		st.Data.Members = append(st.Data.Members, fleet.Member(p, ""))
	}
	return st
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// resolve is gate.Resolve, returning the resolution's step.
func resolve(v *gate.Verdict, id string, dec orgpolicy.Decision, approver, why string) *chain.Step {
	gate.Resolve(v, id, dec, approver, why)
	return &v.Step
}

// appendOne appends one step (a held call's request) to ev's session as
// the server appends an event: under the session's lock, a checkpoint of
// the new tip, and on disk before it returns.
//
// On a fleet server the sender must be allowed to write the session (as
// every event's append checks: fleet.go's mayWrite, which makes a new
// session theirs), and the step names them as its attested actor.
func (s *Server) appendOne(r *http.Request, ev hookevent.Event, cwd string, st chain.Step) error {
	j, sess, done, err := s.journal(ev.Session)
	if err != nil {
		return err
	}
	if s.cfg.Fleet != nil {
		p, _ := PrincipalOf(r)
		if err := s.mayWrite(p, j.Session, j); err != nil {
			done()
			return err
		}
		st.Data = strictjson.Obj(append(slices.Clone(st.Data.Members), fleet.Member(p, ""))...)
	}
	if ev.Cwd != "" {
		cwd = ev.Cwd
	}
	hdr := journalfile.Header{Session: j.Session, Cwd: s.rules.String(cwd), Harness: ev.Harness, Describe: recorderSource{s.cfg.Recorder}}
	now := func() string { return instant.Format(s.cfg.Now()) }
	steps := []chain.Step{st}
	if _, err := j.AppendNow(hdr, steps, now); err != nil {
		done()
		return err
	}
	_, synced, _, err := s.afterAppend(j, sess, ev, steps[0].At)
	done()
	if err != nil {
		return err
	}
	return s.synced(synced, true)
}
