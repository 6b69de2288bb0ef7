package indexcli_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/indexcli"
	"github.com/logbook-project/logbook/internal/server"
)

// TestCommands: sessions, coverage, retention and hold against a running
// server, and --reindex over its data directory.
func TestCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	f := indexcli.Flags{Driver: "sqlite"}
	ix, err := f.Open(context.Background(), data, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	srv, err := server.New(server.Config{Dir: data, Origin: "test", Key: ed25519.NewKeyFromSeed(make([]byte, 32)), Index: ix, ReadToken: "rt"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Close()
	for _, ev := range []string{
		`{"session_id":"s-1","hook_event_name":"SessionStart","cwd":"/w/proj"}`,
		`{"session_id":"s-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"cwd":"/w/proj"}`,
		`{"session_id":"s-1","hook_event_name":"SessionEnd","cwd":"/w/proj"}`,
	} {
		resp, err := ts.Client().Post(ts.URL+"/v1/hooks/claude-code", "application/json", strings.NewReader(ev))
		if err != nil || resp.StatusCode != 200 {
			t.Fatal(resp.Status, err)
		}
		resp.Body.Close()
	}
	srv.IndexFlush()
	env := func(k string) string {
		return map[string]string{"LOGBOOK_SERVER_URL": ts.URL, "LOGBOOK_SERVER_READ_TOKEN": "rt"}[k]
	}
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := indexcli.Run(args, &out, &errb, env)
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("sessions", "--tool", "Bash"); code != 0 || !strings.Contains(out, "s-1") || !strings.Contains(out, "proj") || !strings.Contains(out, "sealed") {
		t.Errorf("sessions: %d %q %q", code, out, errs)
	}
	code, out, _ := run("sessions", "--json", "--repo", "proj")
	var v struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.ID != "s-1" {
		t.Errorf("sessions --json: %d %q", code, out)
	}
	if code, out, _ := run("sessions", "--tool", "Edit"); code != 0 || strings.Contains(out, "s-1") {
		t.Errorf("sessions --tool Edit: %d %q", code, out)
	}
	if code, out, _ := run("coverage", "--developer", "alice"); code != 0 || !strings.Contains(out, "alice (last session ended never)") {
		t.Errorf("coverage: %d %q", code, out)
	}
	if code, _, errs := run("retention", "--run"); code != 1 || !strings.Contains(errs, "NO_RETENTION") {
		t.Errorf("retention --run with no policy: %d %q", code, errs)
	}
	if code, out, _ := run("retention"); code != 0 || out != "retention: no policy, nothing is deleted (set one with --keep-days N)\nlegal holds: 0 session(s)\n" {
		t.Errorf("retention with no policy: %d %q", code, out)
	}
	// retention and hold print lines and a table as sessions and
	// coverage do; --json gives the server's answer.
	if code, out, errs := run("hold", "--session", "s-1", "--reason", "case 7"); code != 0 || out != "s-1: held (retention deletes nothing of it until released)\n" {
		t.Errorf("hold: %d %q %q", code, out, errs)
	}
	if code, out, _ := run("retention", "--keep-days", "30"); code != 0 || !strings.HasPrefix(out, "retention: sealed sessions are kept 30 day(s) (set by ") ||
		!strings.Contains(out, ")\nlegal holds: 1 session(s)\nSESSION  SINCE  ") ||
		!strings.Contains(out, "\ns-1  ") || !strings.HasSuffix(out, "  case 7\n") {
		t.Errorf("retention --keep-days: %d %q", code, out)
	}
	if code, out, _ := run("retention", "--json"); code != 0 || !strings.Contains(out, `"keepDays": 30`) || !strings.Contains(out, `"reason": "case 7"`) {
		t.Errorf("retention --json: %d %q", code, out)
	}
	if code, out, _ := run("hold", "--session", "s-1", "--release", "--json"); code != 0 || !strings.Contains(out, `"held": false`) {
		t.Errorf("hold --release --json: %d %q", code, out)
	}
	if code, out, _ := run("retention", "--run"); code != 0 || !strings.HasPrefix(out, "retention run: ") || !strings.Contains(out, "session(s) replaced by a signed tombstone\n") {
		t.Errorf("retention --run: %d %q", code, out)
	}
	if code, _, errs := run("sessions", "--bogus"); code != 2 || !strings.Contains(errs, "bogus") {
		t.Errorf("bad flag: %d %q", code, errs)
	}
	if code, out, _ := run("sessions", "--help"); code != 0 || !strings.Contains(out, "logbook-server sessions --server URL") {
		t.Errorf("--help: %d %q", code, out)
	}
	var out2, errb bytes.Buffer
	if code := f.RunReindex(context.Background(), data, false, func(string) string { return "" }, &out2, &errb); code != 0 || !strings.Contains(out2.String(), "indexed 1 sessions") {
		t.Errorf("reindex: %d %q %q", code, out2.String(), errb.String())
	}
}
