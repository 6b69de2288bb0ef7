package server_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
)

// TestFleetIndex: on a fleet server the index's seams are the fleet's
// own. Each entry names its attested developer; a developer searches its
// own sessions only, an auditor its tenant's, nobody another tenant's;
// coverage (auditor, admin) names the enrolled developers who sent
// nothing; retention and holds are the admin's; every refusal is
// FORBIDDEN, and an OIDC token's roles count as an enrolled one's.
func TestFleetIndex(t *testing.T) {
	var ix *index.Index
	var dir string
	ff := newFleet(t, func(c *server.Config) {
		var err error
		ix, err = index.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		c.Index, dir = ix, c.Dir
	})
	cred := func(tenant, who string, roles ...fleet.Role) string {
		code, err := ff.store.Enroll(tenant, who, roles, time.Hour, time.Now(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		st, body := do(t, "POST", ff.ts.URL+"/v1/enroll", "", []byte(`{"code":"`+code+`"}`))
		if st != 200 {
			t.Fatalf("enroll %s: %d %s", who, st, body)
		}
		var out struct{ Credential string }
		json.Unmarshal([]byte(body), &out)
		return out.Credential
	}
	dev1, dev2, quiet := cred("acme", "dev1"), cred("acme", "dev2"), cred("acme", "dev9")
	_ = quiet
	aud := cred("acme", "aud1", fleet.Auditor)
	admin := cred("acme", "admin1", fleet.Admin)
	dev3 := cred("other", "dev3")
	ff.sendAs(t, dev1, "s-dev1", "alice")
	ff.sendAs(t, dev2, "s-dev2", "bob")
	ff.sendAs(t, dev3, "s-dev3", "carol")
	ff.srv.IndexFlush()
	ids := func(body string) []string {
		var a server.SearchAnswer
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		var out []string
		for _, s := range a.Sessions {
			out = append(out, s.ID+"="+s.Developer)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		name, bearer, method, path string
		code                       int
		want                       []string // the sessions a search lists
		has                        string
	}{
		{"developer, own", dev1, "GET", "/v1/sessions", 200, []string{"s-dev1=dev1"}, ""},
		{"developer, another's", dev1, "GET", "/v1/sessions?developer=dev2", 403, nil, "FORBIDDEN"},
		{"auditor, tenant", aud, "GET", "/v1/sessions", 200, []string{"s-dev1=dev1", "s-dev2=dev2"}, ""},
		{"auditor, by developer", aud, "GET", "/v1/sessions?developer=dev2", 200, []string{"s-dev2=dev2"}, ""},
		{"other tenant's developer", dev3, "GET", "/v1/sessions", 200, []string{"s-dev3=dev3"}, ""},
		{"OIDC auditor", ff.op.Token(t, "aud1"), "GET", "/v1/sessions", 200, []string{"s-dev1=dev1", "s-dev2=dev2"}, ""},
		{"OIDC approver", ff.op.Token(t, "appr1"), "GET", "/v1/sessions", 403, nil, "FORBIDDEN"},
		{"developer, coverage", dev1, "GET", "/v1/coverage", 403, nil, "FORBIDDEN"},
		{"auditor, coverage", aud, "GET", "/v1/coverage", 200, nil, `"dev9"`},
		{"auditor, retention", aud, "PUT", "/v1/retention", 403, nil, "FORBIDDEN"},
		{"developer, hold", dev1, "PUT", "/v1/sessions/s-dev1/hold", 403, nil, "FORBIDDEN"},
		{"admin, hold", admin, "PUT", "/v1/sessions/s-dev1/hold", 200, nil, ""},
		{"admin, another tenant's hold", admin, "PUT", "/v1/sessions/s-dev3/hold", 404, nil, "SESSION_UNKNOWN"},
		{"admin, retention", admin, "PUT", "/v1/retention", 200, nil, ""},
		{"no credential", "", "GET", "/v1/sessions", 401, nil, "UNAUTHORIZED"},
		{"forged credential", fleet.TokenPrefix + strings.Repeat("0", 43), "GET", "/v1/sessions", 401, nil, "CREDENTIAL_UNKNOWN"},
	} {
		body := []byte(`{"keepDays": 30}`)
		if strings.HasSuffix(c.path, "/hold") {
			body = []byte(`{"reason": "case 7"}`)
		}
		if c.method == "GET" {
			body = nil
		}
		st, b := do(t, c.method, ff.ts.URL+c.path, c.bearer, body)
		if st != c.code || c.has != "" && !strings.Contains(b, c.has) {
			t.Errorf("%s: %s %s: %d %s", c.name, c.method, c.path, st, clip(b))
			continue
		}
		if c.want != nil && !slices.Equal(ids(b), c.want) {
			t.Errorf("%s: lists %v, want %v", c.name, ids(b), c.want)
		}
	}
	// coverage names no developer of another tenant, nor one who sent events.
	_, b := do(t, "GET", ff.ts.URL+"/v1/coverage", aud, nil)
	if strings.Contains(b, `"dev3"`) || strings.Contains(b, `"developer":"dev1"`) && strings.Contains(b, `"silent":[{"developer":"dev1"`) {
		t.Errorf("coverage: %s", clip(b))
	}
	// logbook-server --reindex --data DIR, as docs/index.md gives it (no
	// --fleet): the entries keep their tenant and developer.
	if _, err := server.Reindex(context.Background(), server.Config{Dir: dir, Index: ix}, "server"); err != nil {
		t.Fatal(err)
	}
	if _, b := do(t, "GET", ff.ts.URL+"/v1/sessions", aud, nil); !slices.Equal(ids(b), []string{"s-dev1=dev1", "s-dev2=dev2"}) {
		t.Errorf("after --reindex the auditor lists %v, want s-dev1 and s-dev2", ids(b))
	}
}

// TestFleetCommitOwnSessions: on a fleet server a commit is named in the
// sessions its sender may write into: two developers recording in the
// same work tree each get their own commits, never the other's, and the
// shared token names none of theirs.
func TestFleetCommitOwnSessions(t *testing.T) {
	ff := newFleet(t)
	dev1, dev2 := ff.enrollHTTP(t, "acme", "dev1"), ff.enrollHTTP(t, "acme", "dev2")
	for _, s := range []struct{ bearer, id string }{{dev1, "s-one"}, {dev2, "s-two"}} {
		if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", s.bearer, event(s.id, "PreToolUse", 0)); st != 200 {
			t.Fatalf("%s: %d %s", s.id, st, body)
		}
	}
	body := gitstep.CommitBody("/work/project", gitfacts.Commit{ID: strings.Repeat("ab", 20), Tree: strings.Repeat("cd", 20), Parents: []string{strings.Repeat("ef", 20)}, PatchID: strings.Repeat("12", 20)})
	for _, c := range []struct{ who, bearer, route, want string }{
		{"dev1", dev1, gitstep.CommitRoute, `{"sessions":["s-one"]}`},
		{"dev2", dev2, gitstep.RecordingRoute, `{"sessions":["s-two"]}`},
		{"the shared token", "hook-token", gitstep.CommitRoute, `{"sessions":[]}`},
	} {
		b := body
		if c.route == gitstep.RecordingRoute {
			b = gitstep.RepoBody("/work/project")
		}
		if st, got := do(t, "POST", ff.ts.URL+c.route, c.bearer, b); st != 200 || got != c.want {
			t.Errorf("%s %s: %d %s, want %s", c.who, c.route, st, got, c.want)
		}
	}
}
