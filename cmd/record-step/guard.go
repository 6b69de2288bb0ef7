package main

import (
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/startdir"
)

// guard is `record-step guard`, run by the user-level UserPromptSubmit
// hook install adds for Claude Code: a session started below a project
// that records (where Claude Code would run none of the project's hooks)
// is refused with exit 2, which blocks the prompt and shows the message,
// naming the fix, to the user. Anywhere else it exits 0 and says nothing.
func guard(stdin io.Reader, stderr io.Writer, getenv func(string) string) int {
	_, _ = io.Copy(io.Discard, stdin) // the harness writes the payload; take it
	if err := startdir.Check(getenv("CLAUDE_PROJECT_DIR")); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return 0
}
