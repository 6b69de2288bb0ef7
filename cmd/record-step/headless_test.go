package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/cli"
)

// TestHeadlessStartNotice: a session's start that cannot be recorded says
// "recording is OFF" in a systemMessage, which interactive Claude Code
// shows and claude -p does not (it exports CLAUDE_CODE_ENTRYPOINT=sdk-cli
// to its hooks). There the line goes to the terminal too (/dev/tty, a
// file here); interactively it does not (the screen is Claude Code's).
func TestHeadlessStartNotice(t *testing.T) {
	tty := filepath.Join(t.TempDir(), "tty")
	defer func(p string) { cli.Terminal = p }(cli.Terminal)
	cli.Terminal = tty
	for _, entry := range []string{"cli", "sdk-cli"} {
		os.WriteFile(tty, nil, 0o600)
		dir := filepath.Join(t.TempDir(), "file")
		os.WriteFile(dir, nil, 0o600) // LOGBOOK_DIR is a file: nothing can be recorded
		env := func(k string) string {
			switch k {
			case "LOGBOOK_DIR":
				return dir
			case "CLAUDE_CODE_ENTRYPOINT":
				return entry
			}
			return ""
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"--harness", "claude-code"}, strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`), &stdout, &stderr, env)
		said, _ := os.ReadFile(tty)
		t.Logf("%s: exit %d, terminal %q", entry, code, said)
		if code != 0 || !strings.Contains(stdout.String(), "recording is OFF") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", entry, code, stdout.String(), stderr.String())
		}
		if got := strings.HasPrefix(string(said), "logbook: recording is OFF for this session: "); got != (entry == "sdk-cli") {
			t.Errorf("%s: terminal %q", entry, said)
		}
	}
}
