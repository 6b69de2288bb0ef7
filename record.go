package logbook

import (
	"crypto/rand"
	"errors"
	"io"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/wrap"
)

// RecordEvent appends one harness hook event to its session's journal in
// dir, creating the directory and the journal as needed. payload is the
// JSON the harness hands its hook (Claude Code, Codex, Gemini CLI, Cursor,
// Copilot, VS Code and Grok dialects are read); only digests and redacted
// metadata are kept. at is the event's time. It returns the session id the
// payload names. Concurrent calls, from any process, are safe.
func RecordEvent(dir string, payload []byte, at time.Time) (session string, err error) {
	cwd, _ := os.Getwd()
	ev, err := recorder.Record(dir, payload, instant.Format(at), cwd)
	var warn *recorder.Warning
	if errors.As(err, &warn) {
		err = nil // recorded, with clear text withheld
	}
	return ev.Session, err
}

// Command is a command to run on the record.
type Command struct {
	Args   []string  // the command and its arguments; Args[0] is looked up in $PATH
	Dir    string    // its working directory; "" is the current one
	Env    []string  // its environment; nil is this process's
	Stdin  *os.File  // nil is /dev/null
	Stdout io.Writer // nil discards
	Stderr io.Writer // nil discards
	// Materials and Products are globs (** allowed) of files the command
	// reads and makes: their digests go into the steps.
	Materials, Products []string
}

// Run runs c and records it in session's journal in dir: one step before
// it starts and one after it ends, with the digests of its output and
// files. It returns the command's exit status (128+N after signal N, 127
// when there is no such command); err is set only when a step could not
// be recorded, and then the command did not run unrecorded.
func Run(dir, session string, c Command, now func() time.Time) (exitCode int, err error) {
	if err := journal.ValidSessionID(session); err != nil {
		return wrap.ExitFailure, err
	}
	if c.Dir == "" {
		c.Dir, _ = os.Getwd()
	}
	if c.Env == nil {
		c.Env = os.Environ()
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	hdr := journal.Header{Session: session, Cwd: c.Dir, Harness: "logbook"}
	res := wrap.Run(wrap.Options{
		Argv: c.Args, Cwd: c.Dir, Env: c.Env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Materials: c.Materials, Products: c.Products,
		ID:  "run_" + rand.Text(),
		Now: func() string { return instant.Format(now()) },
		Record: func(s chain.Step) error {
			j, err := journal.Open(dir, session)
			if err != nil {
				return err
			}
			_, err = j.Append(hdr, []chain.Step{s})
			return errors.Join(err, j.Close())
		},
	})
	return res.ExitCode, res.Err
}
