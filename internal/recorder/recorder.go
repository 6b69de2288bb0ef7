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
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Warning is returned (as the error) when the event was recorded but
// something needs the user's attention; the caller reports it and treats
// the event as recorded.
type Warning struct{ Err error }

func (w *Warning) Error() string { return w.Err.Error() }
func (w *Warning) Unwrap() error { return w.Err }

// Record parses payload (a UTF-8 BOM already stripped), stamps it with at,
// and appends it under the session's lock in dir. cwd is used for the
// session header when the payload names none. The returned event is filled
// as far as parsing got, so a caller can report which event failed.
//
// The project's redaction patterns (dir/redact.json, see
// redact.LoadConfig) are applied with the built-in ones. When that file
// exists but cannot be used, the step is still recorded, with its clear
// text withheld (summary and data reduced to what names the event), and
// a *Warning says why: a broken config must neither lose a step nor let a
// secret it was meant to catch through.
func Record(dir string, payload []byte, at, cwd string) (hookevent.Event, error) {
	r, cfgErr := redact.LoadConfig(dir)
	redact.UseProject(r)
	ev, err := hookevent.Parse(payload)
	if err != nil {
		return ev, err
	}
	if ev.Session == "" {
		return ev, fmt.Errorf("%s payload has no session_id", name(ev))
	}
	if cfgErr != nil {
		withhold(&ev.Step)
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
	if _, err = j.Append(journal.Header{Session: ev.Session, Cwd: cwd, Harness: hookevent.Harness}, []chain.Step{ev.Step}); err != nil {
		return ev, err
	}
	if cfgErr != nil {
		return ev, &Warning{fmt.Errorf("recorded with clear text withheld: %w", cfgErr)}
	}
	return ev, nil
}

// withheldKeys are the data members kept when clear text is withheld:
// names the harness gives, which pair events and say what ran.
var withheldKeys = []string{"event", "tool", "toolUseId"}

func withhold(st *chain.Step) {
	st.Summary = redact.Mask + " (clear text withheld: " + redact.ConfigFile + " is unusable)"
	kept := []strictjson.Member{}
	for _, k := range withheldKeys {
		if v := st.Data.Get(k); v != nil && v.Kind == strictjson.String {
			kept = append(kept, strictjson.Member{Key: k, Value: *v})
		}
	}
	kept = append(kept, strictjson.Member{Key: "redaction", Value: strictjson.Str("withheld")})
	st.Data = strictjson.Obj(kept...)
}

func name(ev hookevent.Event) string {
	if ev.Name == "" {
		return "hook"
	}
	return ev.Name
}
