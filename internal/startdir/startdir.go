// Package startdir catches a Claude Code session started below a project
// that records with logbook: Claude Code reads hooks only from the
// directory it starts in (its .claude/settings.json and
// settings.local.json), so such a session would record nothing, silently.
// A user-level UserPromptSubmit hook that install adds runs
// `record-step guard`, which refuses the prompt (exit 2: Claude Code
// blocks it and shows the message to the user) with the fix.
package startdir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// Check returns an error naming the project and the fix when start (the
// directory Claude Code started in) lies below a project whose Claude
// Code settings run logbook, and start's own settings do not. It returns
// nil everywhere else, so the guard costs other sessions nothing.
func Check(start string) error {
	if start == "" {
		return nil
	}
	if runsLogbook(start) {
		return nil
	}
	for d := filepath.Dir(start); ; d = filepath.Dir(d) {
		if runsLogbook(d) {
			rel, _ := filepath.Rel(d, start)
			return fmt.Errorf("logbook: this session would not be recorded: Claude Code was started in %s, below the project %s, and reads hooks only from the directory it starts in. Start claude in %s (or run record-step install --harness claude-code --project %s to record sessions started here)", rel, d, d, start)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// runsLogbook reports a directory whose Claude Code settings call
// logbook's binaries.
func runsLogbook(dir string) bool {
	for _, f := range []string{"settings.json", "settings.local.json"} {
		// readlimit.Small: a FIFO planted there must not hold up the
		// hook (the guard runs on every prompt); 16 MiB is far above
		// any settings file.
		b, err := readlimit.Small(filepath.Join(dir, ".claude", f), 16<<20)
		if err == nil && (strings.Contains(string(b), "/record-step ") || strings.Contains(string(b), "/record-step\"")) {
			return true
		}
	}
	return false
}
