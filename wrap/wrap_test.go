package wrap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/wrap"
)

// The session names the agent as its harness; the project's redaction
// patterns apply to the command line and the agent.
func TestRunHeaderAndRedaction(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"patterns":[{"name":"codename","regexp":"bluebird"}]}`
	if err := os.WriteFile(filepath.Join(dir, "redact.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, err := wrap.Run(dir, "s1", wrap.Command{Args: []string{"true", "bluebird"}},
		wrap.Options{Agent: "agent-bluebird", Now: func() string { return "2026-01-02T03:04:05Z" }})
	if code != 0 || err != nil {
		t.Fatal(code, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s1.steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "bluebird") || strings.Count(string(b), `"seq"`) != 2 {
		t.Errorf("journal:\n%s", b)
	}
}

// A redact.json that cannot be used stops the command before it runs.
func TestRunBadConfigNotRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "redact.json"), []byte("{"), 0o600)
	ran := filepath.Join(t.TempDir(), "ran")
	var logged []string
	code, err := wrap.Run(dir, "s1", wrap.Command{Args: []string{"touch", ran}},
		wrap.Options{Log: func(m string) { logged = append(logged, m) }})
	if code != wrap.ExitFailure || err == nil || len(logged) != 1 || !strings.HasPrefix(logged[0], "not run: ") {
		t.Fatal(code, err, logged)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the command ran")
	}
}
