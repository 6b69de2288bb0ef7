// Package recorder appends one hook payload to its session's in-progress
// file: the path shared by record-step (every event) and logbook-seal --hook
// (SessionEnd, recorded and then sealed in one process so the seal cannot
// race the event).
package recorder

import (
	"fmt"

	"github.com/logbook-project/logbook/internal/chain"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/journal"
)

// Record parses payload (a UTF-8 BOM already stripped), stamps it with at,
// and appends it under the session's lock in dir. cwd is used for the
// session header when the payload names none. The returned event is filled
// as far as parsing got, so a caller can report which event failed.
func Record(dir string, payload []byte, at, cwd string) (hookevent.Event, error) {
	return RecordAs(dir, payload, at, cwd, nil)
}

// RecordAs is Record by a named program: a session whose in-progress file
// this event creates gets self's description as its recorder (self may be
// nil: no recorder). self is asked only then, never on later events.
func RecordAs(dir string, payload []byte, at, cwd string, self journal.RecorderSource) (hookevent.Event, error) {
	ev, err := hookevent.Parse(payload)
	if err != nil {
		return ev, err
	}
	if ev.Session == "" {
		return ev, fmt.Errorf("%s payload has no session_id", name(ev))
	}
	j, err := journal.Open(dir, ev.Session)
	if err != nil {
		return ev, err
	}
	defer j.Close()
	if ev.Cwd != "" {
		cwd = ev.Cwd
	}
	ev.Step.At = at
	_, err = j.Append(journal.Header{Session: ev.Session, Cwd: cwd, Harness: hookevent.Harness, Describe: self}, []chain.Step{ev.Step})
	return ev, err
}

func name(ev hookevent.Event) string {
	if ev.Name == "" {
		return "hook"
	}
	return ev.Name
}
