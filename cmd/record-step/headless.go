package main

import (
	"os"
	"strings"
	"syscall"
)

// headless reports Claude Code run without its screen: claude -p (which
// exports CLAUDE_CODE_ENTRYPOINT=sdk-cli to its hooks; sdk-ts and sdk-py
// from the SDKs; interactive, cli). It prints its answer and nothing of
// a hook's systemMessage: "recording is OFF" reached no one there.
func headless(getenv func(string) string) bool {
	return strings.HasPrefix(getenv("CLAUDE_CODE_ENTRYPOINT"), "sdk-")
}

// terminal is where tellTerminal writes; a variable for the tests.
var terminal = "/dev/tty"

// tellTerminal writes msg on the terminal claude -p was started from: the
// hook's stdout and stderr go to Claude Code, which shows neither in
// print mode, while /dev/tty is the user's screen, and never the model's.
// With no terminal (CI) the open fails and nothing is written: stderr
// and errors.log say it, as always (docs/ci.md says what a CI job checks).
func tellTerminal(msg string) {
	f, err := os.OpenFile(terminal, os.O_WRONLY|os.O_APPEND|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(msg + "\n")
}
