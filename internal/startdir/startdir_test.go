package startdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

func TestCheck(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	os.MkdirAll(sub, 0o755)
	if err := Check(sub); err != nil {
		t.Errorf("no logbook anywhere: %v", err)
	}
	os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"command":"\"$CLAUDE_PROJECT_DIR\"/.logbook/bin/record-step --harness claude-code"}]}]}}`), 0o644)
	if err := Check(root); err != nil {
		t.Errorf("at the root: %v", err)
	}
	err := Check(sub)
	if err == nil || !strings.Contains(err.Error(), "started in a/b, below the project "+root) {
		t.Errorf("below the root: %v", err)
	}
	os.MkdirAll(filepath.Join(sub, ".claude"), 0o755)
	os.WriteFile(filepath.Join(sub, ".claude", "settings.local.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"command":"/opt/lb/record-step --harness claude-code"}]}]}}`), 0o644)
	if err := Check(sub); err != nil {
		t.Errorf("a subdirectory with its own install: %v", err)
	}
}

// TestFIFONotWaitedOn: a FIFO planted at a .claude/settings.json above the
// start directory is passed over, not read: reading it would wait for a
// writer forever, and the guard runs on every prompt.
func TestFIFONotWaitedOn(t *testing.T) {
	root := t.TempDir()
	start := filepath.Join(root, "a", "b")
	os.MkdirAll(start, 0o755)
	os.MkdirAll(filepath.Join(root, "a", ".claude"), 0o755)
	if err := ostest.Mkfifo(filepath.Join(root, "a", ".claude", "settings.json")); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- Check(start) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Check is waiting on the FIFO")
	}
}
