package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestReplicasRetention is issue 36's items 5 and 6 together: two
// logbook-server processes on one database (--db); a retention run
// started on B for a session held on A is refused SESSION_HELD with
// nothing deleted; after the hold is released, a run on A replaces the
// records in the database by tombstones, B serves them and logbook-verify
// names them TOMBSTONED, and B refuses an event for a deleted session.
// The sessions are aged in the index's table (end_ms), the servers'
// clocks being real.
func TestReplicasRetention(t *testing.T) {
	t.Parallel()
	dsn := testmysql.DSN(t)
	dir := t.TempDir()
	key := newServerKey(t, dir)
	tok, rtok := filepath.Join(dir, "token"), filepath.Join(dir, "read.token")
	os.WriteFile(tok, []byte("hook-token\n"), 0o600)
	os.WriteFile(rtok, []byte("read-token\n"), 0o600)
	addrs := []string{freePort(t), freePort(t)}
	r := startReplicas(t, len(addrs), func(i int) *liveServer {
		return startServer(t, addrs[i], filepath.Join(dir, fmt.Sprint("data", i)), key, nil,
			"--db", dsn, "--token-file", tok, "--read-token-file", rtok)
	})
	a, b := r.url(0), r.url(1)
	ids := []string{"gone-1", "gone-2"}
	for i, id := range ids {
		for n, name := range []string{"PreToolUse", "PostToolUse", "SessionEnd"} {
			ev, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": name, "cwd": "/work/project", "reason": "other",
				"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%06d", n/2), "tool_input": map[string]any{"command": "true"}})
			if !r.send((i+n)%2, "hook-token", ev) {
				t.Fatalf("%s: %s refused", id, name)
			}
		}
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The feeds write the entries within their batch's wait (50 ms).
	for try := 0; ; try++ {
		var n int
		db.QueryRow("SELECT COUNT(*) FROM sessions WHERE verdict = 'sealed'").Scan(&n)
		if n == len(ids) {
			break
		}
		if try == 200 {
			t.Fatalf("%d sealed entries in the index", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := db.Exec("UPDATE sessions SET end_ms = end_ms - 3 * 86400000"); err != nil {
		t.Fatal(err)
	}
	call := func(method, url, body string, want int) string {
		t.Helper()
		code, out := bearerCall(t, method, url, "read-token", []byte(body))
		if code != want {
			t.Fatalf("%s %s: %d %s", method, url, code, out)
		}
		return out
	}
	call("PUT", a+"/v1/retention", `{"keepDays": 1}`, 200)
	call("PUT", a+"/v1/sessions/gone-2/hold", `{"reason": "case 7"}`, 200)
	if out := call("POST", b+"/v1/retention/run", "", 409); !strings.Contains(out, "SESSION_HELD") {
		t.Fatalf("run on B: %s", out)
	}
	verify := func(id string) string {
		rec := readWith(t, b+"/v1/sessions/"+id+"/record", "read-token")
		f := filepath.Join(t.TempDir(), id+".json")
		os.WriteFile(f, rec, 0o644)
		out, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", key+".pub", f).Output()
		var v struct {
			OK     bool
			Code   string
			Detail string
		}
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s: %s", id, out)
		}
		if v.OK {
			return "OK"
		}
		return v.Code
	}
	for _, id := range ids {
		if got := verify(id); got != "OK" {
			t.Fatalf("%s after a refused run: %s", id, got)
		}
	}
	call("DELETE", b+"/v1/sessions/gone-2/hold", "", 200)
	if out := call("POST", a+"/v1/retention/run", `{"reason": "kept 1 day"}`, 200); !strings.Contains(out, `"deleted":["gone-1","gone-2"]`) {
		t.Fatalf("run on A: %s", out)
	}
	for _, id := range ids {
		if got := verify(id); got != "TOMBSTONED" {
			t.Errorf("%s read on B: %s", id, got)
		}
		ev, _ := json.Marshal(map[string]any{"session_id": id, "hook_event_name": "PreToolUse", "cwd": "/work/project",
			"tool_name": "Bash", "tool_use_id": "toolu_000009", "tool_input": map[string]any{"command": "true"}})
		code, out := bearerCall(t, "POST", b+"/v1/hooks/claude-code", "hook-token", ev)
		if code != 500 || !strings.Contains(out, "WRITE_FAILED") || !strings.Contains(out, "deleted under retention") {
			t.Errorf("%s: an event on B: %d %s", id, code, out)
		}
	}
}
