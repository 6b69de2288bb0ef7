// Package journal appends steps to a session's in-progress journal, the
// file (DIR/SESSION.steps.jsonl) that logbook-seal, or logbook.Seal, later
// signs into a record, one harness hook event at a time. (Package wrap
// records a command run on the record into the same journal.)
//
// It is the lean half of the API: it links neither the verifier nor the
// sealer (no net, no crypto/x509), so a hook that runs on every tool call
// starts fast. The root package, github.com/logbook-project/logbook, uses
// it for RecordEvent and adds sealing, verifying and following.
//
// Only digests and redacted clear text are kept. The project's own
// redaction patterns, DIR/redact.json (docs/redaction.md), apply with the
// built-in ones. Appends from any number of processes are safe: each takes
// the session's lock, and a step's time is taken under it.
package journal

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
)

// Harnesses returns the harness names EventOptions.Harness takes.
func Harnesses() []string { return slices.Clone(hookevent.Harnesses) }

// EventOptions say what the payload's shape cannot, and how to report.
// The zero value records a payload whose dialect is recognised from its
// members, at the system clock's time.
type EventOptions struct {
	// Harness is the harness whose hook configuration sent the payload,
	// one of Harnesses; "" lets the payload's members say.
	Harness string
	// Event is the event the hook is configured for, for payloads that
	// name none (Copilot CLI's).
	Event string
	// Now returns the step's time as the record writes it, an RFC 3339
	// UTC instant such as 2026-01-02T03:04:05Z. It is asked once the
	// session's lock is held, so times follow the steps' order even when
	// hooks run in parallel. nil is the system clock.
	Now func() string
	// Cwd is the session's working directory when the payload names
	// none; "" is this process's.
	Cwd string
	// Recorder is the name of the program recording. When this event
	// starts the session, the session names it, with its version and the
	// SHA-256 of its executable, as its recorder. "" names no recorder.
	Recorder string
	// Warn is told, in one line, what went wrong without stopping the
	// event from being recorded: a redact.json that cannot be used (the
	// step is then recorded with its clear text withheld), an executable
	// that could not be hashed. nil ignores them.
	Warn func(msg string)
}

// Event is what Record read from a payload. It is filled as far as
// reading got, also when Record fails, so that a caller can say which
// event was not recorded.
type Event struct {
	Session string // the session id the payload names
	Name    string // the hook event, e.g. PreToolUse; "" when unknown
	Harness string // the harness that sent it, with its version when the payload gives one: "claude-code", "cursor 2.0.77", …
}

// Refusal is the error of an event that was not recorded. Its fields are
//
//	Reason string // why, one of the reasons below
//	Err    error  // what, in words
type Refusal = recorder.Refusal

// Reasons an event is not recorded, the first word of a Refusal's text.
const (
	PayloadEmpty     = recorder.PayloadEmpty     // an empty payload
	PayloadNotJSON   = recorder.PayloadNotJSON   // not one JSON text (cut off, binary, trailing data)
	PayloadTooDeep   = recorder.PayloadTooDeep   // nested too deep to read safely
	PayloadNotObject = recorder.PayloadNotObject // JSON, but not an object
	SessionMissing   = recorder.SessionMissing   // no session id: no session to put it in
	SessionInvalid   = recorder.SessionInvalid   // a session id that could not be a file name
	WriteFailed      = recorder.WriteFailed      // the directory or the journal could not be written
	EventReserved    = recorder.EventReserved    // the event is named logbook.*: a forged internal note
)

// Record appends one harness hook event to its session's journal in dir,
// creating the directory and the journal as needed. payload is the JSON
// a harness hands its hook (Claude Code, Codex, Gemini CLI, Cursor,
// Copilot, VS Code and Grok dialects are read; a leading UTF-8 byte order
// mark is ignored). The error, when the event was not recorded, is a
// *Refusal.
func Record(dir string, payload []byte, opt EventOptions) (Event, error) {
	hint := hookevent.Hint{Harness: opt.Harness, Event: opt.Event}
	now := opt.Now
	if now == nil {
		now = systemNow
	}
	cwd := opt.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	warn := opt.Warn
	if warn == nil {
		warn = func(string) {}
	}
	var self journalfile.RecorderSource
	if opt.Recorder != "" {
		self = &recorder.Self{Name: opt.Recorder, Warn: warn}
	}
	ev, err := recorder.Record(dir, stripBOM(payload), "", cwd, recorder.Options{Hint: hint, Self: self, Now: now})
	var w *recorder.Warning
	if errors.As(err, &w) {
		warn(fmt.Sprintf("%s: %v", ev.Name, w))
		err = nil
	}
	return Event{Session: ev.Session, Name: ev.Name, Harness: ev.Harness}, err
}

func stripBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

func systemNow() string { return instant.Format(time.Now()) }
