package startdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
