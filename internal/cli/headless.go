package cli

import (
	"os"
	"strings"
)

// Headless reports Claude Code run without its screen: claude -p (which
// exports CLAUDE_CODE_ENTRYPOINT=sdk-cli to its hooks; sdk-ts and sdk-py
// from the SDKs; interactive, cli). It prints its answer and nothing of
// a hook's systemMessage: "recording is OFF" reached no one there.
func Headless(getenv func(string) string) bool {
	return strings.HasPrefix(getenv("CLAUDE_CODE_ENTRYPOINT"), "sdk-")
}

// Terminal is where TellTerminal writes: the controlling terminal
// (/dev/tty; CONOUT$ on Windows). A variable for the tests.
var Terminal = terminalPath

// TellTerminal writes msg on the terminal claude -p was started from: the
// hook's stdout and stderr go to Claude Code, which shows neither in
// print mode, while the terminal is the user's screen, and never the
// model's. With no terminal (CI) the open fails and nothing is written:
// stderr and errors.log say it, as always (docs/ci.md says what a CI job
// checks).
func TellTerminal(msg string) {
	f, err := os.OpenFile(Terminal, os.O_WRONLY|os.O_APPEND|terminalFlags, 0)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(msg + "\n")
}
