package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/tombstone"
)

// The index's routes (docs/index.md):
//
//	GET    /v1/sessions?developer=&repo=&commit=&tool=&decision=&level=&since=&until=&limit=&cursor=
//	GET    /v1/coverage?days=&quiet=&developer=…&limit=
//	GET    /v1/retention                 the tenant's policy and holds
//	PUT    /v1/retention                 {"keepDays": N}
//	POST   /v1/retention/run             {"reason": TEXT}: tombstones what the policy no longer keeps
//	PUT    /v1/sessions/{id}/hold        {"reason": TEXT}: a legal hold
//	DELETE /v1/sessions/{id}/hold

// Index errors, each with its status (errors.go's status).
const (
	errBadQuery   = "QUERY_INVALID"   // 400: a filter, limit or cursor that cannot be read
	errNoIndex    = "INDEX_OFF"       // 404: the server keeps no index
	errIndex      = "INDEX_FAILED"    // 500: the database failed
	errHeld       = "SESSION_HELD"    // 409: retention would delete a held session: nothing deleted
	errNoPolicy   = "NO_RETENTION"    // 409: the tenant has no retention policy
	errNotIndexed = "SESSION_UNKNOWN" // 404: no such session in the index
)

// Actions a caller is authorized for.
const (
	ActSearch   = "sessions.search"  // a developer: their own sessions; an auditor or admin: the tenant's
	ActCoverage = "coverage.read"    // auditor, admin
	ActAdmin    = "retention.manage" // admin
)

// Caller is who asks, as the authorization seam names them.
type Caller struct {
	Tenant    string
	Developer string // the caller's own developer name
	Role      string // RoleDeveloper, RoleAuditor or RoleAdmin
}

// Roles.
const (
	RoleDeveloper = "developer"
	RoleAuditor   = "auditor"
	RoleAdmin     = "admin"
)

// ErrForbidden is the authorization seam's refusal.
var ErrForbidden = errors.New("forbidden")

// Authorize decides whether r may do action and names its caller
// (Config.Authorize; the fleet's identity provides it).
type Authorize func(r *http.Request, action string) (Caller, error)

// authorizeStub stands until the fleet's roles: the route already
// checked the read token (readAuth), whose holder is the default
// tenant's auditor; admin needs a read token of its own (with only the
// hook token, which the agent holds, admin is refused).
func (s *Server) authorizeStub(r *http.Request, action string) (Caller, error) {
	if action == ActAdmin && s.cfg.ReadToken == "" {
		return Caller{}, fmt.Errorf("%w: managing retention needs the read token (--read-token-file), not the hook token", ErrForbidden)
	}
	return Caller{Role: RoleAdmin}, nil
}

func (s *Server) indexRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/v1/sessions", s.indexAuth(s.method("GET", s.searchSessions)))
	mux.HandleFunc("/v1/coverage", s.indexAuth(s.method("GET", s.coverage)))
	mux.HandleFunc("/v1/retention", s.indexAuth(s.retention))
	mux.HandleFunc("/v1/retention/run", s.indexAuth(s.method("POST", s.retentionRun)))
	mux.HandleFunc("/v1/sessions/{id}/hold", s.indexAuth(s.hold))
}

// allowed authorizes r for action, answering the refusal itself.
func (s *Server) allowed(w http.ResponseWriter, r *http.Request, action string) (Caller, bool) {
	if s.cfg.Index == nil {
		s.fail(w, r, errNoIndex, "this server keeps no session index (logbook-server --index)")
		return Caller{}, false
	}
	az := s.cfg.Authorize
	switch {
	case az != nil:
	case s.cfg.Fleet != nil:
		az = s.fleetAuthorize
	default:
		az = s.authorizeStub
	}
	c, err := az(r, action)
	if err != nil {
		s.fail(w, r, errForbidden, err.Error())
		return c, false
	}
	return c, true
}

func (s *Server) indexFailed(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, index.ErrBadCursor), errors.Is(err, index.ErrBadQuery), errors.Is(err, index.ErrTooLong):
		s.fail(w, r, errBadQuery, err.Error())
	default:
		s.fail(w, r, errIndex, err.Error())
	}
}

// QueryOf reads a search's filters from a URL's query.
func QueryOf(v url.Values) (index.Query, error) {
	q := index.Query{Developer: v.Get("developer"), Repo: v.Get("repo"), Commit: v.Get("commit"), Tool: v.Get("tool"),
		Decision: v.Get("decision"), Level: v.Get("level"), Cursor: v.Get("cursor"), Sort: v.Get("sort")}
	if err := q.SetBounds(v.Get("since"), v.Get("until")); err != nil {
		return q, err
	}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil {
			return q, fmt.Errorf("%w: limit: want a number", index.ErrBadQuery)
		}
		q.Limit = n
	}
	return q, nil
}

// SearchAnswer is GET /v1/sessions's body.
type SearchAnswer struct {
	Sessions []index.View `json:"sessions"`
	Next     string       `json:"next"` // "" after the last page
}

// AppendJSON appends a's JSON as encoding/json writes it (writeJSON
// takes it instead: a page's views without reflection).
func (a SearchAnswer) AppendJSON(b []byte) []byte {
	b = append(b, `{"sessions":`...)
	if a.Sessions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range a.Sessions {
			if i > 0 {
				b = append(b, ',')
			}
			b = a.Sessions[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	b = index.AppendJSONString(append(b, `,"next":`...), a.Next)
	return append(b, '}')
}

func (s *Server) searchSessions(w http.ResponseWriter, r *http.Request) {
	c, ok := s.allowed(w, r, ActSearch)
	if !ok {
		return
	}
	q, err := QueryOf(r.URL.Query())
	if err != nil {
		s.indexFailed(w, r, err)
		return
	}
	q.Tenant = c.Tenant
	if c.Role == RoleDeveloper {
		// A developer reads their own sessions only.
		if q.Developer != "" && q.Developer != c.Developer {
			s.fail(w, r, errForbidden, "a developer searches their own sessions only")
			return
		}
		q.Developer = c.Developer
	}
	pg, err := s.cfg.Index.Search(r.Context(), q)
	if err != nil {
		s.indexFailed(w, r, err)
		return
	}
	out := SearchAnswer{Sessions: make([]index.View, 0, len(pg.Sessions)), Next: pg.Next}
	for _, e := range pg.Sessions {
		out.Sessions = append(out.Sessions, index.ViewOf(e))
	}
	writeJSON(w, http.StatusOK, out)
}

// CoverageAnswer is GET /v1/coverage's body.
type CoverageAnswer struct {
	Since   string       `json:"since"`
	Silent  []SilentView `json:"silent"`
	Unended []index.View `json:"unended"`
	Outages []index.View `json:"outages"`
}

// SilentView is a developer who sent nothing since the cutoff.
type SilentView struct {
	Developer string `json:"developer"`
	Last      string `json:"last"` // "": never
}

func (s *Server) coverage(w http.ResponseWriter, r *http.Request) {
	c, ok := s.allowed(w, r, ActCoverage)
	if !ok {
		return
	}
	if c.Role == RoleDeveloper {
		s.fail(w, r, errForbidden, "coverage is for auditors and admins")
		return
	}
	v := r.URL.Query()
	days, quiet, limit := int64(7), time.Hour, 0
	var err error
	if d := v.Get("days"); d != "" {
		if days, err = strconv.ParseInt(d, 10, 64); err != nil || days < 1 || days > 36500 {
			s.fail(w, r, errBadQuery, "days: want 1 to 36500")
			return
		}
	}
	if d := v.Get("quiet"); d != "" {
		if quiet, err = time.ParseDuration(d); err != nil || quiet <= 0 {
			s.fail(w, r, errBadQuery, "quiet: want a duration, e.g. 1h")
			return
		}
	}
	if l := v.Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil {
			s.fail(w, r, errBadQuery, "limit: want a number")
			return
		}
	}
	devs := v["developer"]
	if len(devs) > index.MaxLimit {
		// Each name is a query of the index: a URL of a megabyte of
		// names would be some 80,000 of them.
		s.fail(w, r, errBadQuery, fmt.Sprintf("developer: at most %d names", index.MaxLimit))
		return
	}
	enrolledOf := s.cfg.Enrolled
	if enrolledOf == nil && s.cfg.Fleet != nil {
		enrolledOf = s.fleetEnrolled
	}
	if enrolledOf != nil {
		enrolled, err := enrolledOf(c.Tenant)
		if err != nil {
			s.fail(w, r, errIndex, err.Error())
			return
		}
		devs = append(enrolled, devs...)
	}
	now := s.cfg.Now()
	since := now.Add(-time.Duration(days) * 24 * time.Hour)
	cv, err := s.cfg.Index.Coverage(r.Context(), index.CoverageQuery{Tenant: c.Tenant, Developers: devs,
		SinceMS: since.UnixMilli(), QuietMS: now.Add(-quiet).UnixMilli(), Limit: limit})
	if err != nil {
		s.indexFailed(w, r, err)
		return
	}
	out := CoverageAnswer{Since: index.Time(since.UnixMilli()), Silent: []SilentView{}, Unended: views(cv.Unended), Outages: views(cv.Outages)}
	for _, d := range cv.Silent {
		out.Silent = append(out.Silent, SilentView{Developer: d.Developer, Last: index.Time(d.LastMS)})
	}
	writeJSON(w, http.StatusOK, out)
}

func views(ss []*index.Session) []index.View {
	out := make([]index.View, 0, len(ss))
	for _, e := range ss {
		out = append(out, index.ViewOf(e))
	}
	return out
}

// readSmallJSON reads a small JSON request body into v.
func readIndexJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if err := decodeJSON(w, r, 64<<10, v); err != nil {
		return fmt.Errorf("%w: the body: %v", index.ErrBadQuery, err)
	}
	return nil
}

// RetentionAnswer is GET /v1/retention's body.
type RetentionAnswer struct {
	KeepDays int64      `json:"keepDays"` // 0: no policy, nothing is deleted
	SetBy    string     `json:"setBy"`
	Holds    []HoldView `json:"holds"`
}

// HoldView is one legal hold.
type HoldView struct {
	Session string `json:"session"`
	By      string `json:"by"`
	Reason  string `json:"reason"`
	At      string `json:"at"`
}

func (s *Server) retention(w http.ResponseWriter, r *http.Request) {
	if r.Method != "GET" && r.Method != "HEAD" && r.Method != "PUT" {
		w.Header().Set("Allow", "GET, PUT")
		s.fail(w, r, errMethod, r.Method+" /v1/retention: only GET and PUT")
		return
	}
	c, ok := s.allowed(w, r, ActAdmin)
	if !ok {
		return
	}
	ctx := r.Context()
	if r.Method == "PUT" {
		var body struct {
			KeepDays int64 `json:"keepDays"`
		}
		if err := readIndexJSON(w, r, &body); err != nil {
			s.indexFailed(w, r, err)
			return
		}
		if err := s.cfg.Index.SetPolicy(ctx, index.Policy{Tenant: c.Tenant, KeepDays: body.KeepDays, SetBy: c.byName(), SetMS: s.cfg.Now().UnixMilli()}); err != nil {
			s.indexFailed(w, r, err)
			return
		}
		s.cfg.Log.Info("retention policy", "tenant", c.Tenant, "keepDays", body.KeepDays, "by", c.byName())
	}
	p, _, err := s.cfg.Index.PolicyOf(ctx, c.Tenant)
	if err != nil {
		s.indexFailed(w, r, err)
		return
	}
	hs, err := s.cfg.Index.Holds(ctx, c.Tenant)
	if err != nil {
		s.indexFailed(w, r, err)
		return
	}
	out := RetentionAnswer{KeepDays: p.KeepDays, SetBy: p.SetBy, Holds: []HoldView{}}
	for _, h := range hs {
		out.Holds = append(out.Holds, HoldView{Session: h.ID, By: h.By, Reason: h.Reason, At: index.Time(h.AtMS)})
	}
	writeJSON(w, http.StatusOK, out)
}

// byName is who the caller is in a tombstone or a hold.
func (c Caller) byName() string {
	if c.Developer != "" {
		return c.Developer + " (" + c.Role + ")"
	}
	return "the read token's holder (" + c.Role + ")"
}

func (s *Server) hold(w http.ResponseWriter, r *http.Request) {
	if r.Method != "PUT" && r.Method != "DELETE" {
		w.Header().Set("Allow", "PUT, DELETE")
		s.fail(w, r, errMethod, r.Method+": only PUT and DELETE")
		return
	}
	c, ok := s.allowed(w, r, ActAdmin)
	if !ok {
		return
	}
	id := r.PathValue("id")
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	ctx := r.Context()
	if r.Method == "DELETE" {
		had, err := s.cfg.Index.ReleaseHold(ctx, c.Tenant, id)
		if err != nil {
			s.indexFailed(w, r, err)
			return
		}
		s.cfg.Log.Info("hold released", "session", id, "had", had, "by", c.byName())
		writeJSON(w, http.StatusOK, map[string]any{"session": id, "held": false})
		return
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if err := readIndexJSON(w, r, &body); err != nil {
		s.indexFailed(w, r, err)
		return
	}
	if e, err := s.cfg.Index.Get(ctx, c.Tenant, id); err != nil || e == nil {
		if err == nil {
			s.fail(w, r, errNotIndexed, "no session "+id+" in the index")
		} else {
			s.indexFailed(w, r, err)
		}
		return
	}
	if s.cfg.DB != nil {
		// With replicas, the hold is set under the session's row lock,
		// which a retention run holds from its check of holds to its
		// tombstone (replicaTombstone): the run sees the hold, or the
		// session was deleted before it was asked for.
		lctx, cancel := context.WithTimeout(ctx, slotWait)
		tx, _, err := s.cfg.DB.Lock(lctx, id)
		cancel()
		if err != nil {
			s.fail(w, r, errIndex, "database: lock session "+id+": "+err.Error())
			return
		}
		defer tx.Rollback()
	}
	if err := s.cfg.Index.SetHold(ctx, index.Hold{Tenant: c.Tenant, ID: id, By: c.byName(), Reason: body.Reason, AtMS: s.cfg.Now().UnixMilli()}); err != nil {
		s.indexFailed(w, r, err)
		return
	}
	s.cfg.Log.Info("hold", "session", id, "by", c.byName())
	writeJSON(w, http.StatusOK, map[string]any{"session": id, "held": true})
}

// RunAnswer is POST /v1/retention/run's body.
type RunAnswer struct {
	Deleted []string `json:"deleted"`
}

func (s *Server) retentionRun(w http.ResponseWriter, r *http.Request) {
	c, ok := s.allowed(w, r, ActAdmin)
	if !ok {
		return
	}
	var body struct {
		Reason string `json:"reason"`
	}
	if r.ContentLength != 0 {
		if err := readIndexJSON(w, r, &body); err != nil {
			s.indexFailed(w, r, err)
			return
		}
	}
	done, err := s.Retain(r, c, body.Reason)
	out := RunAnswer{Deleted: []string{}}
	for _, e := range done {
		out.Deleted = append(out.Deleted, e.ID)
	}
	var held *index.HeldError
	switch {
	case errors.As(err, &held):
		s.fail(w, r, errHeld, err.Error())
	case errors.Is(err, index.ErrNoPolicy):
		s.fail(w, r, errNoPolicy, "no retention policy for this tenant: set one with PUT /v1/retention")
	case err != nil:
		s.fail(w, r, errIndex, fmt.Sprintf("%v (deleted before it: %d)", err, len(done)))
	default:
		writeJSON(w, http.StatusOK, out)
	}
}

// Retain runs the caller's tenant's retention policy now: each sealed
// session it no longer keeps has its record replaced by a tombstone
// signed with the server's key and its steps removed (Tombstone).
func (s *Server) Retain(r *http.Request, c Caller, reason string) ([]*index.Session, error) {
	p, _, err := s.cfg.Index.PolicyOf(r.Context(), c.Tenant)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		reason = fmt.Sprintf("retention policy: keep %d days", p.KeepDays)
	}
	by := c.byName()
	return s.cfg.Index.Retain(r.Context(), c.Tenant, s.cfg.Now().UnixMilli(), func(e *index.Session) error {
		return s.Tombstone(e, by, reason)
	})
}

// Tombstone replaces session e's record by a signed tombstone (who,
// when, why) and removes its steps. Its checkpoints stay, and with them
// the transparency log's entries: they name the deleted record's tip and
// size, which the tombstone repeats. It holds the session's lock; with
// replicas, the session's row in the database too (replicaTombstone).
func (s *Server) Tombstone(e *index.Session, by, reason string) error {
	st, err := s.locked(e.ID)
	if err != nil {
		return err
	}
	defer st.mu.Unlock()
	if s.cfg.DB != nil {
		return s.replicaTombstone(e, st, by, reason)
	}
	base := filepath.Join(s.cfg.Dir, e.ID)
	rec, err := os.ReadFile(base + ".record.json")
	if err != nil {
		return err
	}
	b, err := s.tombstoneOf(e, rec, by, reason)
	if err != nil || b == nil {
		return err
	}
	if st.j != nil {
		st.j.Close()
		st.j = nil
	}
	if err := s.tombstoneCopy(e.ID, b); err != nil {
		return err
	}
	s.cfg.Log.Info("tombstoned", "session", e.ID, "by", by, "reason", reason)
	return nil
}

// tombstoneOf is the signed tombstone that stands for record rec of
// session e; nil when rec is a tombstone already.
func (s *Server) tombstoneOf(e *index.Session, rec []byte, by, reason string) ([]byte, error) {
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth, Discard: "steps"})
	if err != nil {
		return nil, fmt.Errorf("%s.record.json: %w", e.ID, err)
	}
	if tombstone.Is(v) {
		return nil, nil // deleted already
	}
	t := tombstone.Tombstone{Session: e.ID, Tenant: e.Tenant, Developer: e.Developer, RecordSHA256: sha256Hex(rec),
		DeletedAt: instant.Format(s.cfg.Now()), DeletedBy: by, Reason: reason}
	t.ChainTip, _ = v.GetString("chainTip")
	if n := v.Get("stepCount"); n != nil {
		t.StepCount, _ = strconv.ParseInt(n.Str, 10, 64)
	}
	if ses := v.Get("session"); ses != nil {
		t.StartedAt, _ = ses.GetString("startedAt")
		t.EndedAt, _ = ses.GetString("endedAt")
	}
	return tombstone.Sign(t, s.cfg.Key)
}

// tombstoneCopy makes the data directory's files of session id what a
// deletion leaves: the tombstone b as the record, its checkpoints, no
// journal, hook numbers or reopened mark. The session's lock is held,
// and its journal closed.
func (s *Server) tombstoneCopy(id string, b []byte) error {
	base := filepath.Join(s.cfg.Dir, id)
	if err := durable.WriteFileMode(base+".record.json", b, 0o600); err != nil {
		return err
	}
	// The journal's removal goes into the write-ahead log first, synced,
	// so that replay after a power loss does not make it again from the
	// log's older entries.
	if s.wal != nil {
		if err := s.wal.Remove(filepath.Base(journalfile.Path(s.cfg.Dir, id))); err != nil {
			return err
		}
		if err := s.commit.AddSync(nil, s.wal).Wait(); err != nil {
			return err
		}
	}
	for _, f := range []string{journalfile.Path(s.cfg.Dir, id), base + ".hookseq", base + reopenedSuffix} {
		if err := ignoreMissing(os.Remove(f)); err != nil {
			return err
		}
	}
	// The removals made durable: a rotation of the log since the Remove
	// above may have retired its segment, and replay would not remove
	// the journal a power loss brought back.
	if s.commit != nil {
		return s.commit.Sync(s.cfg.Dir)
	}
	return nil
}

// errTombstoned refuses an event for a session deleted under retention:
// its id stays taken by the tombstone.
var errTombstoned = errors.New("the session was deleted under retention: its record is a tombstone, and its id takes no more events")

// notTombstoned is errTombstoned when session id's record is a
// tombstone. It is asked only when the session has no journal.
func (s *Server) notTombstoned(id string) error {
	b, err := os.ReadFile(filepath.Join(s.cfg.Dir, id+".record.json"))
	if err == nil && bytes.Contains(b, []byte(`"v":"`+tombstone.Format+`"`)) {
		return errTombstoned
	}
	return nil
}
