package logbook

import (
	"time"

	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/journal"
	"github.com/logbook-project/logbook/wrap"
)

// RecordEvent appends one harness hook event to its session's journal in
// dir, creating the directory and the journal as needed. payload is the
// JSON the harness hands its hook (Claude Code, Codex, Gemini CLI, Cursor,
// Copilot, VS Code and Grok dialects are read); only digests and redacted
// metadata are kept. at is the event's time. It returns the session id the
// payload names. Concurrent calls, from any process, are safe.
//
// It is [journal.Record] with its zero options but the time; a hook that
// must start fast uses package journal, which links no verifier.
func RecordEvent(dir string, payload []byte, at time.Time) (session string, err error) {
	stamp := instant.Format(at)
	ev, err := journal.Record(dir, payload, journal.EventOptions{Now: func() string { return stamp }})
	return ev.Session, err
}

// Command is a command to run on the record; see [wrap.Command].
type Command = wrap.Command

// Run runs c and records it in session's journal in dir: one step before
// it starts and one after it ends, with the digests of its output and
// files. It returns the command's exit status (128+N after signal N, 127
// when there is no such command); err is set only when Run failed itself
// (a step could not be recorded, dir's redact.json is unusable), and then
// the command did not run unrecorded. It is [wrap.Run] with its options
// but the clock left out.
func Run(dir, session string, c Command, now func() time.Time) (exitCode int, err error) {
	return wrap.Run(dir, session, c, wrap.Options{Now: func() string { return instant.Format(now()) }})
}
