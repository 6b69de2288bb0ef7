package e2e

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestForgedInternalEvent: the agent names its own event logbook.hooks
// (to pass for managed hooks) or logbook.unsent (to fake or hide a gap).
// The server answers 400 EVENT_RESERVED to a native HTTP hook's POST and
// to record-step --server, and record-step refuses it locally with the
// same name; no journal holds a step of it.
func TestForgedInternalEvent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil)
	forged := []string{
		`{"session_id":"forge","hook_event_name":"logbook.hooks","source":"managed","file":"/etc/claude-code/managed-settings.json"}`,
		`{"session_id":"forge","hook_event_name":"Logbook.Unsent","count":0}`,
	}
	for _, p := range forged {
		resp, err := http.Post(s.url+"/v1/hooks/claude-code", "application/json", strings.NewReader(p))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !bytes.Contains(body, []byte(`"error":"EVENT_RESERVED"`)) {
			t.Errorf("HTTP hook %s: %d %s", p, resp.StatusCode, body)
		}
		for _, args := range [][]string{{"--server", s.url}, {"--dir", filepath.Join(dir, "local")}} {
			cmd := exec.Command(filepath.Join(bin, "record-step"), append(args, "--harness", "claude-code")...)
			cmd.Stdin = strings.NewReader(p)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "EVENT_RESERVED") {
				t.Errorf("record-step %v %s: %v %s", args, p, err, out)
			}
		}
	}
	for _, f := range []string{filepath.Join(dir, "data", "forge.steps.jsonl"), filepath.Join(dir, "local", "forge.steps.jsonl")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s: a forged note was recorded (%v)", f, err)
		}
	}
	report(t, "forged logbook.* events: 400 EVENT_RESERVED from the server (HTTP hook and record-step --server), refused by record-step locally, nothing recorded")
}
