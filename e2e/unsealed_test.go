package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnsealedNotice: a session whose end found no signing key is
// reported by logbook-verify: UNSEALED (exit 1) while there is no record,
// and a notice line once it was sealed later.
func TestUnsealedNotice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := t.TempDir()
	env := append(os.Environ(), "HOME="+home, "LOGBOOK_SIGNING_KEY=", "LOGBOOK_DIR=", "LOGBOOK_NOW=2026-05-01T00:00:00Z")
	run := func(stdin string, prog string, args ...string) (int, string) {
		cmd := exec.Command(filepath.Join(bin, prog), args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, string(out)
	}
	run(`{"session_id":"u1","hook_event_name":"SessionStart","source":"startup"}`, "record-step", "--dir", dir)
	if code, out := run(`{"session_id":"u1","hook_event_name":"SessionEnd","reason":"exit"}`, "logbook-seal", "--hook", "--dir", dir); code != 0 || !strings.Contains(out, "NOT SEALED") {
		t.Fatalf("seal --hook without a key: exit %d %s", code, out)
	}
	rec := filepath.Join(dir, "u1.record.json")
	code, out := run("", "logbook-verify", rec)
	if code != 1 || !strings.HasPrefix(out, "UNSEALED session u1: it ended at 2026-05-01T00:00:00Z without being sealed") {
		t.Fatalf("verify of the unsealed session: exit %d %q", code, out)
	}
	key := filepath.Join(home, "k")
	run("", "logbook-seal", "--new-key", key)
	if code, out := run("", "logbook-seal", "--dir", dir, "--session", "u1", "--key", key); code != 0 {
		t.Fatalf("seal later: %d %s", code, out)
	}
	code, out = run("", "logbook-verify", "--pubkey", key+".pub", rec)
	if code != 0 || !strings.Contains(out, "notice: the session's end found no signing key and left it unsealed") {
		t.Fatalf("verify after a later seal: exit %d %q", code, out)
	}
}
