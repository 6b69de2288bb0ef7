// Package wrap runs a command on the record, as logbook-wrap does: a step
// goes into the session's in-progress journal before the command starts,
// and one after it ends, with the digests of its output and files.
//
// It is lean like package journal (no verifier, no sealer), so wrapping a
// command adds little to its start; the root package's Run uses it.
package wrap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/wraprun"
)

// ExitFailure is Run's exit status when it failed itself: the command did
// not run, or one of its steps could not be recorded.
const ExitFailure = wraprun.ExitFailure

// Command is a command to run on the record.
type Command struct {
	Args   []string  // the command and its arguments; Args[0] is looked up in $PATH
	Dir    string    // its working directory; "" is the current one
	Env    []string  // its environment; nil is this process's
	Stdin  *os.File  // nil is /dev/null
	Stdout io.Writer // nil discards
	Stderr io.Writer // nil discards
	// Materials and Products are globs (** allowed), relative to Dir, of
	// files the command reads and makes: their digests go into the steps.
	Materials, Products []string
	// MaxFiles caps the files the Materials globs, and the Products
	// globs, may match; 0 is 1,000.
	MaxFiles int
}

// Options say who runs the command, why, and how to report.
type Options struct {
	// Now returns a step's time as the record writes it, an RFC 3339 UTC
	// instant; nil is the system clock.
	Now func() string
	// Agent is the agent or tool the command is, e.g. codex, and Goal
	// what it is run for: clear text for the steps, redacted.
	Agent, Goal string
	// Recorder is the name of the program recording: a session this run
	// starts names it (version, executable's SHA-256) as its recorder,
	// and as its harness when Agent is "". "" names no recorder.
	Recorder string
	// Signals, when not nil, are passed on to the command, except one the
	// terminal already sent it. Subscribe with signal.Notify before Run,
	// so that none is lost.
	Signals <-chan os.Signal
	// Log is told, in one line each, what the run could not do (not run,
	// a step not recorded, a signal not passed on); nil ignores them.
	Log func(msg string)
}

// Run runs c and records it in session's journal in dir: one step before
// it starts, with the digests of its materials, and one after it ends,
// with its exit status and the digests of its output and products. The
// start is recorded first: if that fails, the command does not run,
// rather than run unrecorded.
//
// It returns the command's exit status (128+N after signal N, 127 when
// there is no such command, 126 when it cannot be run). err is set when
// Run failed itself, and exitCode is then ExitFailure: dir's redact.json
// is unusable, a glob matches too many files, or a step could not be
// recorded.
func Run(dir, session string, c Command, opt Options) (exitCode int, err error) {
	if opt.Log == nil {
		opt.Log = func(string) {}
	}
	fail := func(err error) (int, error) {
		err = fmt.Errorf("not run: %w", err)
		opt.Log(err.Error())
		return ExitFailure, err
	}
	if err := journalfile.ValidSessionID(session); err != nil {
		return fail(err)
	}
	red, err := redact.LoadConfig(dir)
	if err != nil {
		return fail(err)
	}
	if c.Dir == "" {
		if c.Dir, err = os.Getwd(); err != nil {
			return fail(err)
		}
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
	now := opt.Now
	if now == nil {
		now = systemNow
	}
	hdr := wraprun.Header(session, c.Dir, red, opt.Recorder, opt.Agent, opt.Log)
	w := wraprun.Options{
		Argv: c.Args, Cwd: c.Dir, Env: c.Env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Agent: opt.Agent, Goal: opt.Goal, Redactor: red,
		Materials: c.Materials, Products: c.Products, MaxFiles: c.MaxFiles,
		ID:      wraprun.NewID(),
		Now:     now,
		Signals: opt.Signals,
		Log:     opt.Log,
		Record: func(s chain.Step) error {
			j, err := journalfile.Open(dir, session)
			if err != nil {
				return err
			}
			_, err = j.Append(hdr, []chain.Step{s})
			return errors.Join(err, j.Close())
		},
	}
	if opt.Signals != nil {
		w.Keyboard = wraprun.FromTerminal
	}
	res := wraprun.Run(w)
	return res.ExitCode, res.Err
}

func systemNow() string { return instant.Format(time.Now()) }
