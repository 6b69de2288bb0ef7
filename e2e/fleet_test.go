package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/oidcop"
)

// TestFleetBinaries: the fleet as its people run it, with the real
// commands and a real OpenID provider. The admin enrolls dev1
// (logbook-server enroll), dev1's machine trades the code (record-step
// install --enroll) and its hooks record a session; a CI job sends its
// OIDC token and records another; the job's event into dev1's session
// is refused. Both records pass logbook-verify --require-attested at
// level server and name their own actor, attested and asserted.
func TestFleetBinaries(t *testing.T) {
	t.Parallel()
	op := oidcop.Start(t)
	dir := t.TempDir()
	key := newServerKey(t, dir)
	data := filepath.Join(dir, "data")
	cfg, _ := json.Marshal(map[string]any{"issuers": []map[string]any{{"issuer": op.Issuer, "audiences": []string{oidcop.Audience},
		"tenantClaim": "tenant", "rolesClaim": "roles"}}})
	os.WriteFile(filepath.Join(dir, "oidc.json"), cfg, 0o600)
	s := startServer(t, freePort(t), data, key, nil, "--fleet", "--oidc-config", filepath.Join(dir, "oidc.json"))

	out, err := exec.Command(filepath.Join(bin, "logbook-server"), "enroll", "--data", data, "--tenant", "acme", "--developer", "dev1").Output()
	if err != nil {
		t.Fatal(err)
	}
	code := strings.TrimSpace(string(out))
	home, project := t.TempDir(), t.TempDir()
	env := func(extra ...string) []string {
		var e []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "LOGBOOK_") && !strings.HasPrefix(kv, "USER=") {
				e = append(e, kv)
			}
		}
		return append(e, append([]string{"HOME=" + home}, extra...)...)
	}
	install := exec.Command(filepath.Join(bin, "record-step"), "install", "--harness", "gemini", "--project", project, "--server", s.url, "--enroll", code)
	install.Env = env()
	if out, err := install.CombinedOutput(); err != nil || !strings.Contains(string(out), "enrolled as dev1 in acme") {
		t.Fatalf("install --enroll: %v\n%s", err, out)
	}
	hook := func(session string, i int, extra ...string) {
		t.Helper()
		c := exec.Command(filepath.Join(bin, "record-step"), "--harness", "claude-code", "--server", s.url)
		c.Dir, c.Env = project, env(extra...)
		body := toolEvent(session, i)
		if i < 0 {
			body = []byte(`{"session_id":"` + session + `","hook_event_name":"SessionEnd","reason":"exit"}`)
		}
		c.Stdin = bytes.NewReader(body)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("record-step: %v %s", err, out)
		}
	}
	for i := 0; i < 4; i++ {
		hook("dev1-session", i, "USER=alice")
	}
	ci := op.Token(t, "ci1")
	for i := 0; i < 4; i++ {
		hook("ci-session", i, "LOGBOOK_SERVER_TOKEN="+ci)
	}
	// The job's event into dev1's session: the hook goes on (fail-open),
	// the server refuses it and appends nothing.
	hook("dev1-session", 99, "LOGBOOK_SERVER_TOKEN="+ci)
	hook("dev1-session", -1, "USER=alice")
	hook("ci-session", -1, "LOGBOOK_SERVER_TOKEN="+ci)

	for session, want := range map[string]string{"dev1-session": `"subject":"dev1"`, "ci-session": `"subject":"ci1"`} {
		rec, cp := filepath.Join(dir, session+".json"), filepath.Join(dir, session+".checkpoint")
		os.WriteFile(rec, fetch(t, s.url+"/v1/sessions/"+session+"/record"), 0o644)
		os.WriteFile(cp, fetch(t, s.url+"/v1/sessions/"+session+"/record-checkpoint"), 0o644)
		out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", s.pub, "--checkpoint", cp, "--checkpoint-key", s.vkey, "--require-attested", rec).Output()
		var v cpVerdict
		if err := json.Unmarshal(out, &v); err != nil || !v.OK || v.level() != "server" || *v.StepCount < 5 || !strings.Contains(string(out), want) {
			t.Errorf("%s: %s", session, out)
		}
		if session == "dev1-session" && !strings.Contains(string(out), `"asserted":["alice"]`) {
			t.Errorf("%s: the user the hook said is not asserted: %s", session, out)
		}
	}
	if !strings.Contains(s.stderr.String(), "ACTOR_MISMATCH") {
		t.Errorf("the cross write is not in the server's log:\n%s", s.stderr)
	}
}
