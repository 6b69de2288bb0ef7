package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/fleet/oidcauth"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/oidcop"
	"github.com/logbook-project/logbook/internal/translog"
)

type fleetFixture struct {
	*fixture
	op, other *oidcop.Provider
	store     *fleet.Store
	skew      *atomic.Int64 // added to the server's clock
}

func newFleet(t *testing.T, more ...func(*server.Config)) *fleetFixture {
	t.Helper()
	ff := &fleetFixture{op: oidcop.Start(t), other: oidcop.Start(t), skew: new(atomic.Int64)}
	now := func() time.Time { return time.Now().Add(time.Duration(ff.skew.Load())) }
	ff.fixture = newServer(t, func(c *server.Config, _ *http.Server) {
		st, err := fleet.OpenStore(c.Dir)
		if err != nil {
			t.Fatal(err)
		}
		v, err := oidcauth.New(oidcauth.Config{Issuers: []oidcauth.Issuer{{Issuer: ff.op.Issuer,
			Audiences: []string{oidcop.Audience}, TenantClaim: "tenant", RolesClaim: "roles"}}}, nil, now)
		if err != nil {
			t.Fatal(err)
		}
		ff.store = st
		c.Fleet = &server.Fleet{Store: st, OIDC: v}
		// A transparency log, for its tiles' route (POSIX, no witness).
		tl, err := translog.Open(context.Background(), translog.Config{Dir: filepath.Join(t.TempDir(), "log"), Origin: "logbook.test/log", Key: c.Key})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			tl.Close(ctx)
		})
		c.TLog = tl
		c.Now = now
		c.Token, c.ReadToken, c.OpenReads = "hook-token", "read-token", false
		for _, m := range more {
			m(c)
		}
	})
	return ff
}

func do(t testing.TB, method, url, bearer string, body []byte, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func errCode(body string) string {
	var e struct{ Error string }
	json.Unmarshal([]byte(body), &e)
	return e.Error
}

// enrollHTTP trades a fresh code for dev's credential through POST /v1/enroll.
func (ff *fleetFixture) enrollHTTP(t *testing.T, tenant, dev string) string {
	t.Helper()
	code, err := ff.store.Enroll(tenant, dev, nil, time.Hour, time.Now(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	st, body := do(t, "POST", ff.ts.URL+"/v1/enroll", "", []byte(`{"code":"`+code+`"}`))
	if st != 200 {
		t.Fatalf("enroll: %d %s", st, body)
	}
	var out struct{ Credential string }
	json.Unmarshal([]byte(body), &out)
	return out.Credential
}

// sendAs records a tool call pair and a SessionEnd in session as bearer.
func (ff *fleetFixture) sendAs(t *testing.T, bearer, session string, user string) {
	t.Helper()
	for _, name := range []string{"PreToolUse", "PostToolUse", "SessionEnd"} {
		if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", bearer, event(session, name, 1), "X-Logbook-User", user); st != 200 {
			t.Fatalf("%s into %s: %d %s", name, session, st, body)
		}
	}
}

// actors are the actors of a record's steps, "-" for a step with none.
func actors(t *testing.T, rec string) []string {
	t.Helper()
	v, err := strictjson.Parse([]byte(rec), strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, st := range v.Get("steps").Items {
		a, ok, err := fleet.ActorOf(st.Get("data"))
		switch {
		case err != nil:
			t.Fatalf("step: %v", err)
		case !ok:
			out = append(out, "-")
		default:
			s := a.Attested.By + ":" + a.Attested.Tenant + "/" + a.Attested.Subject
			if a.Asserted != nil {
				s += " asserted " + a.Asserted.User
			}
			out = append(out, s)
		}
	}
	return out
}

// TestFleetRoutes tries each route with each role: a developer writes
// and reads its own sessions only, an auditor reads its tenant's, an
// admin manages its tenant's credentials, nobody crosses tenants; every
// step names its attested actor and the user the client claimed.
func TestFleetRoutes(t *testing.T) {
	ff := newFleet(t)
	dev1 := ff.enrollHTTP(t, "acme", "dev1")
	tok := map[string]string{
		"dev1": dev1, "dev2": ff.op.Token(t, "dev2"), "aud1": ff.op.Token(t, "aud1"), "admin1": ff.op.Token(t, "admin1"),
		"appr1": ff.op.Token(t, "appr1"), "dev3": ff.op.Token(t, "dev3"), "aud3": ff.op.Token(t, "aud3"),
		"token": "read-token", "none": "",
	}
	ff.sendAs(t, dev1, "s-dev1", "alice")
	ff.sendAs(t, tok["dev2"], "s-dev2", "")
	st, rec := do(t, "GET", ff.ts.URL+"/v1/sessions/s-dev1/record", dev1, nil)
	if st != 200 {
		t.Fatalf("own record: %d %s", st, rec)
	}
	for i, a := range actors(t, rec) {
		if a != "credential:acme/dev1 asserted alice" {
			t.Errorf("s-dev1 step %d: actor %q", i, a)
		}
	}
	// The review shows both.
	_, steps, err := review.ReadRecord([]byte(rec))
	if err != nil {
		t.Fatal(err)
	}
	_, sum := review.Build(steps)
	if len(sum.Attested) != 1 || !strings.HasPrefix(sum.Attested[0], "dev1 in acme (credential ") || len(sum.Asserted) != 1 || sum.Asserted[0] != "alice" {
		t.Errorf("review: attested %q, asserted %q", sum.Attested, sum.Asserted)
	}
	_, rec2 := do(t, "GET", ff.ts.URL+"/v1/sessions/s-dev2/record", tok["dev2"], nil)
	for i, a := range actors(t, rec2) {
		if a != "oidc:acme/dev2" {
			t.Errorf("s-dev2 step %d: actor %q", i, a)
		}
	}

	// Writes into s-dev1 by anyone else: refused, nothing appended.
	for who, want := range map[string]string{"dev2": "ACTOR_MISMATCH", "dev3": "ACTOR_MISMATCH", "aud1": "FORBIDDEN", "admin1": "FORBIDDEN", "appr1": "FORBIDDEN", "aud3": "FORBIDDEN"} {
		st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", tok[who], event("s-dev1", "PreToolUse", 9))
		if st != 403 || errCode(body) != want {
			t.Errorf("%s writing s-dev1: %d %s, want 403 %s", who, st, body, want)
		}
	}
	// Nor does the shared token write into it.
	if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", "hook-token", event("s-dev1", "PreToolUse", 9)); st != 403 || errCode(body) != "ACTOR_MISMATCH" {
		t.Errorf("the shared token writing s-dev1: %d %s", st, body)
	}
	// An auditor, admin or approver starts no session either.
	for _, who := range []string{"aud1", "admin1", "appr1"} {
		if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", tok[who], event("s-"+who, "SessionStart", 0)); st != 403 {
			t.Errorf("%s starting a session: %d %s", who, st, body)
		}
		if _, err := os.Stat(filepath.Join(ff.opts.Dir, "s-"+who+".steps.jsonl")); err == nil {
			t.Errorf("%s's refused session has a journal", who)
		}
	}
	if _, again := do(t, "GET", ff.ts.URL+"/v1/sessions/s-dev1/record", dev1, nil); again != rec {
		t.Error("s-dev1's record changed after the refused writes")
	}

	// Reads: each session route, each role.
	readers := map[string][]string{ // who may read s-dev1
		"dev1": {"yes"}, "aud1": {"yes"}, "token": {"yes"},
		"dev2": {"FORBIDDEN"}, "admin1": {"FORBIDDEN"}, "appr1": {"FORBIDDEN"}, "dev3": {"FORBIDDEN"}, "aud3": {"FORBIDDEN"},
		"none": {"UNAUTHORIZED"},
	}
	for _, route := range []string{"record", "checkpoint", "record-checkpoint", "tlog-proof"} {
		for who, want := range readers {
			st, body := do(t, "GET", ff.ts.URL+"/v1/sessions/s-dev1/"+route, tok[who], nil)
			allowed := st != 401 && st != 403
			if want[0] == "yes" != allowed || !allowed && errCode(body) != want[0] {
				t.Errorf("%s GET %s: %d %s, want %s", who, route, st, clip(body), want[0])
			}
		}
	}
	// The log's tiles name every session of every tenant: the shared
	// token and auditors read them.
	for who, want := range map[string]int{"token": 200, "aud1": 200, "aud3": 200, "dev1": 403, "admin1": 403, "appr1": 403, "none": 401} {
		if st, body := do(t, "GET", ff.ts.URL+"/v1/log/checkpoint", tok[who], nil); st != want {
			t.Errorf("%s GET /v1/log/checkpoint: %d %s, want %d", who, st, clip(body), want)
		}
	}
	// The hook token reads nothing where there is a read token.
	if st, _ := do(t, "GET", ff.ts.URL+"/v1/sessions/s-dev1/record", "hook-token", nil); st != 401 {
		t.Errorf("hook token reading: %d", st)
	}

	// Admin routes.
	enrollBody := []byte(`{"tenant":"acme","developer":"dev9","ttl":"1h"}`)
	for who, want := range map[string]int{"admin1": 200, "aud1": 403, "dev1": 403, "dev3": 403, "appr1": 403, "none": 401} {
		if st, body := do(t, "POST", ff.ts.URL+"/v1/admin/enroll", tok[who], enrollBody); st != want {
			t.Errorf("%s POST /v1/admin/enroll: %d %s, want %d", who, st, body, want)
		}
		if st, body := do(t, "GET", ff.ts.URL+"/v1/admin/credentials?tenant=acme", tok[who], nil); st != want {
			t.Errorf("%s GET /v1/admin/credentials: %d %s, want %d", who, st, body, want)
		}
	}
	if st, _ := do(t, "POST", ff.ts.URL+"/v1/admin/enroll", tok["admin1"], []byte(`{"tenant":"other","developer":"x","ttl":"1h"}`)); st != 403 {
		t.Errorf("acme's admin enrolling into other: %d", st)
	}
	list, _ := ff.store.List()
	if st, body := do(t, "POST", ff.ts.URL+"/v1/admin/credentials/"+list[0].ID+"/revoke", tok["aud3"], nil); st != 403 {
		t.Errorf("other's auditor revoking: %d %s", st, body)
	}
	if st, body := do(t, "POST", ff.ts.URL+"/v1/admin/credentials/"+list[0].ID+"/revoke", tok["admin1"], nil); st != 200 {
		t.Errorf("admin revoking: %d %s", st, body)
	}
	if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", dev1, event("s-dev1b", "SessionStart", 0)); st != 401 || errCode(body) != "CREDENTIAL_REVOKED" {
		t.Errorf("revoked credential: %d %s", st, body)
	}
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

// TestFleetBadInput: an expired, reused or forged enrollment code, a
// revoked or forged credential, and the OIDC tokens of the wrong issuer,
// for the wrong audience, expired, with alg none or a forged signature,
// are each refused with their own code, and nothing is recorded.
func TestFleetBadInput(t *testing.T) {
	ff := newFleet(t)
	enroll := func(code string) (int, string) {
		st, body := do(t, "POST", ff.ts.URL+"/v1/enroll", "", []byte(`{"code":"`+code+`"}`))
		return st, errCode(body)
	}
	used, _ := ff.store.Enroll("acme", "dev1", nil, time.Hour, time.Now(), rand.Reader)
	if st, _ := enroll(used); st != 200 {
		t.Fatal("first use refused")
	}
	expired, _ := ff.store.Enroll("acme", "dev2", nil, time.Minute, time.Now().Add(-time.Hour), rand.Reader)
	for name, c := range map[string][2]string{
		"reused":  {used, "ENROLL_CODE_USED"},
		"expired": {expired, "ENROLL_CODE_EXPIRED"},
		"forged":  {fleet.CodePrefix + strings.Repeat("x", 43), "ENROLL_CODE_UNKNOWN"},
	} {
		if st, code := enroll(c[0]); st != 403 || code != c[1] {
			t.Errorf("%s code: %d %s, want 403 %s", name, st, code, c[1])
		}
	}
	good := ff.op.Token(t, "dev1")
	parts := strings.Split(good, ".")
	pb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	forgedPayload := bytes.Replace(pb, []byte(`"dev1"`), []byte(`"dev2"`), 1)
	ff.skew.Store(0)
	bad := map[string][2]string{
		"wrong issuer":      {ff.other.Token(t, "dev1"), "OIDC_ISSUER"},
		"wrong audience":    {ff.op.Token(t, "dev1", "elsewhere"), "OIDC_AUDIENCE"},
		"alg none":          {base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", "OIDC_ALGORITHM"},
		"forged signature":  {parts[0] + "." + base64.RawURLEncoding.EncodeToString(forgedPayload) + "." + parts[2], "OIDC_SIGNATURE"},
		"forged credential": {fleet.TokenPrefix + strings.Repeat("y", 43), "CREDENTIAL_UNKNOWN"},
		"unknown token":     {"whatever", "UNAUTHORIZED"},
	}
	try := func(name, bearer, want string) {
		st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", bearer, event("s-bad", "SessionStart", 0))
		if st != 401 || errCode(body) != want {
			t.Errorf("%s: %d %s, want 401 %s", name, st, body, want)
		}
	}
	for name, c := range bad {
		try(name, c[0], c[1])
	}
	ff.skew.Store(int64(2 * time.Hour)) // the good token, two hours on
	try("expired", good, "OIDC_EXPIRED")
	if _, err := os.Stat(filepath.Join(ff.opts.Dir, "s-bad.steps.jsonl")); err == nil {
		t.Error("a refused event was recorded")
	}
}

// TestFleetAssertedControls: a claimed user (X-Logbook-User, the
// payload's user) holding a C1 control or a bidi override is written
// with "?" in their place, by the rule an OIDC subject is refused by
// (fleet.Prints): the verifier and the review print it.
func TestFleetAssertedControls(t *testing.T) {
	ff := newFleet(t)
	cred := ff.enrollHTTP(t, "acme", "dev1")
	if st, b := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", cred, event("s-ctl", "SessionStart", 0), "X-Logbook-User", "ali\u009b8mce"); st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	body := []byte(`{"session_id":"s-ctl","hook_event_name":"SessionEnd","user":"bob\u202egnp.exe"}`)
	if st, b := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", cred, body); st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	_, rec := do(t, "GET", ff.ts.URL+"/v1/sessions/s-ctl/record", cred, nil)
	got := actors(t, rec)
	if len(got) != 2 || got[0] != "credential:acme/dev1 asserted ali?8mce" || got[1] != "credential:acme/dev1 asserted bob?gnp.exe" {
		t.Errorf("actors %q", got)
	}
}

// TestFleetAsserted: what the payload says of its user (Cursor's
// user_email) wins over the hook's X-Logbook-User; both stay asserted,
// beside the attested credential; a payload cannot set the actor member
// itself.
func TestFleetAsserted(t *testing.T) {
	ff := newFleet(t)
	cred := ff.enrollHTTP(t, "acme", "dev1")
	body := []byte(`{"session_id":"s-cur","hook_event_name":"SessionStart","user_email":"bob@acme.example","logbook.actor":{"attested":{"by":"token"}}}`)
	if st, b := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", cred, body, "X-Logbook-User", "alice"); st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	if st, b := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", cred, event("s-cur", "SessionEnd", 0), "X-Logbook-User", "alice"); st != 200 {
		t.Fatalf("%d %s", st, b)
	}
	_, rec := do(t, "GET", ff.ts.URL+"/v1/sessions/s-cur/record", cred, nil)
	got := actors(t, rec)
	if len(got) != 2 || got[0] != "credential:acme/dev1 asserted bob@acme.example" || got[1] != "credential:acme/dev1 asserted alice" {
		t.Errorf("actors %q", got)
	}
}
