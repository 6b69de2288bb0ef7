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
	return RecordWith(dir, payload, hookevent.Hint{}, at, cwd)
}

// RecordWith is Record for a payload of any harness dialect, with what the
// hook's command line says about it (--harness, --event). The session
// header names the harness that sent the first event.
func RecordWith(dir string, payload []byte, hint hookevent.Hint, at, cwd string) (hookevent.Event, error) {
	ev, err := hookevent.ParseWith(payload, hint)
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
	_, err = j.Append(journal.Header{Session: ev.Session, Cwd: cwd, Harness: ev.Harness}, []chain.Step{ev.Step})
	return ev, err
}

func name(ev hookevent.Event) string {
	if ev.Name == "" {
		return "hook"
	}
	return ev.Name
}
