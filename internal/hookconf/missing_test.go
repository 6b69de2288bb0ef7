package hookconf

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestMissingBinaryShown: a clone has the hooks but not .logbook/bin. Each
// hook command, run by sh as the harness runs it, exits 0 with a line on
// stderr; at the session's start, in the harnesses that show a hook's
// systemMessage, it also prints one JSON object on stdout saying the
// session is not recorded and how to get record-step. Other events and
// other harnesses print nothing on stdout (it would reach the model).
func TestMissingBinaryShown(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip(err)
	}
	project := t.TempDir()
	for _, name := range Names() {
		spec := Lookup(name)
		for _, server := range []string{"", "http://127.0.0.1:9"} {
			tg := ProjectTarget(spec)
			tg.Server = server
			for _, e := range spec.Events {
				if tg.httpHook(e) {
					continue
				}
				cmd := exec.Command("sh", "-c", tg.Command(e))
				cmd.Dir = project
				cmd.Env = []string{"PATH=/usr/bin:/bin", "CLAUDE_PROJECT_DIR=" + project, "GEMINI_PROJECT_DIR=" + project, "GROK_WORKSPACE_ROOT=" + project}
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s %s: %v (%s)", name, e.Name, err, stderr.String())
				}
				if !strings.Contains(stderr.String(), "is missing") {
					t.Errorf("%s %s: stderr %q", name, e.Name, stderr.String())
				}
				start := e.Name == "SessionStart" || e.Name == "sessionStart"
				shows := name == "claude-code" || name == "gemini" || name == "codex" || name == "vscode"
				if !start || !shows {
					if stdout.Len() != 0 {
						t.Errorf("%s %s: stdout %q", name, e.Name, stdout.String())
					}
					continue
				}
				var out struct{ SystemMessage string }
				if err := json.Unmarshal([]byte(stdout.String()), &out); err != nil {
					t.Fatalf("%s %s: stdout %q: %v", name, e.Name, stdout.String(), err)
				}
				for _, want := range []string{"recording is OFF", "go build", "record-step install --harness " + name} {
					if !strings.Contains(out.SystemMessage, want) {
						t.Errorf("%s %s (server %q): systemMessage %q lacks %q", name, e.Name, server, out.SystemMessage, want)
					}
				}
			}
		}
	}
}
