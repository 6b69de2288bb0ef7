package server_test

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/index"
)

// TestFleetSharedTokenManagesNothing: the hooks' shared token may not
// mint an enrollment code (an admin's, for any tenant) nor list a
// tenant's credentials.
func TestFleetSharedTokenManagesNothing(t *testing.T) {
	ff := newFleet(t)
	st, body := do(t, "POST", ff.ts.URL+"/v1/admin/enroll", "hook-token", []byte(`{"tenant":"acme","developer":"mallory","roles":["admin","auditor"],"ttl":"1h"}`))
	if st != 403 || errCode(body) != "FORBIDDEN" {
		t.Errorf("the shared token enrolling an admin: %d %s", st, body)
	}
	if st, body := do(t, "GET", ff.ts.URL+"/v1/admin/credentials?tenant=acme", "hook-token", nil); st != 403 {
		t.Errorf("the shared token listing acme's credentials: %d %s", st, body)
	}
}

// TestFleetRevokeAcrossTenants: an admin names a credential by a prefix
// of its id that a revoked credential of its own tenant shares with a
// live one of another tenant; the route must not take the revoked one's
// tenant for the live one's.
func TestFleetRevokeAcrossTenants(t *testing.T) {
	ff := newFleet(t)
	dir := filepath.Join(ff.dir, "data", "fleet", "credentials")
	put := func(name string, c fleet.Credential) {
		b, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	victim := "abcd1234" + strings.Repeat("a", 56)
	put(victim+".json", fleet.Credential{ID: victim[:16], Tenant: "acme", Subject: "victim", Roles: []fleet.Role{fleet.Developer}})
	own := "abcd1234" + strings.Repeat("b", 56)
	put(own+".revoked", fleet.Credential{ID: own[:16], Tenant: "zzz", Subject: "old", Roles: []fleet.Role{fleet.Developer}})
	code, err := ff.store.Enroll("zzz", "boss", []fleet.Role{fleet.Admin}, time.Hour, time.Now(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	st, body := do(t, "POST", ff.ts.URL+"/v1/enroll", "", []byte(`{"code":"`+code+`"}`))
	if st != 200 {
		t.Fatalf("enroll: %d %s", st, body)
	}
	var out struct{ Credential string }
	json.Unmarshal([]byte(body), &out)
	if st, body := do(t, "POST", ff.ts.URL+"/v1/admin/credentials/abcd1234/revoke", out.Credential, nil); st != 403 {
		t.Errorf("zzz's admin revoking by a prefix acme's credential shares: %d %s", st, body)
	}
	if _, err := os.Stat(filepath.Join(dir, victim+".json")); err != nil {
		t.Errorf("acme's credential: %v", err)
	}
}

// TestFleetCommitsStayInTheirSessions: POST /v1/commits names the commit
// in the sessions recording in the work tree that the sender may write,
// and POST /v1/recording lists only those: a developer of another tenant
// (or another developer, or an auditor) neither appends a commit step to
// dev1's session nor learns its id.
func TestFleetCommitsStayInTheirSessions(t *testing.T) {
	ff := newFleet(t)
	dev1 := ff.op.Token(t, "dev1")
	if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", dev1, event("s-dev1", "PreToolUse", 1)); st != 200 {
		t.Fatalf("dev1's event: %d %s", st, body)
	}
	commit := gitstep.CommitBody("/work/project", gitfacts.Commit{ID: strings.Repeat("ab", 20), Tree: strings.Repeat("cd", 20), Parents: []string{strings.Repeat("ef", 20)}, PatchID: strings.Repeat("12", 20)})
	for _, who := range []string{"dev3", "dev2", "aud1"} {
		tok := ff.op.Token(t, who)
		if st, body := do(t, "POST", ff.ts.URL+gitstep.CommitRoute, tok, commit); st != 200 || strings.Contains(body, "s-dev1") {
			t.Errorf("%s POST /v1/commits: %d %s", who, st, body)
		}
		if st, body := do(t, "POST", ff.ts.URL+gitstep.RecordingRoute, tok, gitstep.RepoBody("/work/project")); st != 200 || strings.Contains(body, "s-dev1") {
			t.Errorf("%s POST /v1/recording: %d %s", who, st, body)
		}
	}
	if st, body := do(t, "POST", ff.ts.URL+gitstep.CommitRoute, "hook-token", commit); st != 200 || strings.Contains(body, "s-dev1") {
		t.Errorf("the shared token POST /v1/commits: %d %s", st, body)
	}
	if st, body := do(t, "POST", ff.ts.URL+gitstep.CommitRoute, dev1, commit); st != 200 || body != `{"sessions":["s-dev1"]}` {
		t.Errorf("dev1 POST /v1/commits: %d %s", st, body)
	}
}

// TestCoverageBoundsDevelopers: each developer= of GET /v1/coverage is
// a query of the index; more names than a page holds are refused
// QUERY_INVALID rather than run (a URL of a megabyte holds ~80,000).
func TestCoverageBoundsDevelopers(t *testing.T) {
	f, _, _ := indexed(t)
	q := strings.Repeat("developer=d&", index.MaxLimit+1)
	if code, b := call(t, "GET", f.ts.URL+"/v1/coverage?"+q, "rt", ""); code != 400 || !strings.Contains(string(b), "QUERY_INVALID") {
		t.Errorf("%d names: %d %s", index.MaxLimit+1, code, b)
	}
	q = strings.Repeat("developer=d&", index.MaxLimit)
	if code, b := call(t, "GET", f.ts.URL+"/v1/coverage?"+q, "rt", ""); code != 200 {
		t.Errorf("%d names: %d %s", index.MaxLimit, code, b)
	}
}

// TestForgedActorWithoutFleet: a server without a fleet writes no actor,
// and keeps none a payload brings: whoever holds the shared token (the
// agent, from its environment) could otherwise post events whose data
// hold "logbook.actor" attested as "acme/boss", for
// logbook-verify --require-attested to take as boss's (no finding: the
// payload's member does not reach the step).
func TestForgedActorWithoutFleet(t *testing.T) {
	f := newServer(t, nil)
	forged := `,"logbook.actor":{"attested":{"by":"credential","tenant":"acme","subject":"boss","credential":"0123456789abcdef"}}}`
	for _, name := range []string{"PreToolUse", "PostToolUse", "SessionEnd"} {
		ev := event("s-forged", name, 1)
		ev = append(ev[:len(ev)-1], forged...)
		if code, body := post(t, f.ts.Client(), f.ts.URL+"/v1/hooks/claude-code", ev); code != 200 {
			t.Fatalf("%s: %d %s", name, code, body)
		}
	}
	code, rec := get(t, f.ts.URL+"/v1/sessions/s-forged/record")
	if code != 200 || strings.Contains(string(rec), fleet.ActorKey) {
		t.Errorf("the record (%d) keeps the payload's %s: %s", code, fleet.ActorKey, rec)
	}
}
