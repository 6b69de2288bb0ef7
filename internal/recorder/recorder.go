// Package recorder appends one hook payload to its session's in-progress
// file: the path shared by record-step (every event) and logbook-seal --hook
// (SessionEnd, recorded and then sealed in one process so the seal cannot
// race the event).
package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Warning is returned (as the error) when the event was recorded but
// something needs the user's attention; the caller reports it and treats
// the event as recorded.
type Warning struct{ Err error }

func (w *Warning) Error() string { return w.Err.Error() }
func (w *Warning) Unwrap() error { return w.Err }

// Reasons an event is not recorded: the first word of a *Refusal, and
// what record-step prints and logs, so that a failure can be counted and
// acted on by name.
const (
	PayloadEmpty     = "PAYLOAD_EMPTY"      // nothing on stdin
	PayloadNotJSON   = "PAYLOAD_NOT_JSON"   // not one JSON text (cut off, binary, trailing data)
	PayloadTooDeep   = "PAYLOAD_TOO_DEEP"   // nested beyond hookevent.MaxPayloadDepth
	PayloadNotObject = "PAYLOAD_NOT_OBJECT" // JSON, but an array, string, number, …
	PayloadTooLarge  = "PAYLOAD_TOO_LARGE"  // over MaxPayload bytes, refused unread past it
	SessionMissing   = "SESSION_ID_MISSING" // no session_id: no session to put it in
	SessionInvalid   = "SESSION_ID_INVALID" // a session id that could not be a file name
	WriteFailed      = "WRITE_FAILED"       // the session directory or file could not be written
	// EventReserved: the event is named in the logbook.* namespace, which
	// only recorders write (logbook.unsent, logbook.hooks,
	// logbook.tornTail, ...): a payload naming one is a forged internal
	// note (a fake "the hooks are managed", a fake gap), never recorded.
	EventReserved = "EVENT_RESERVED"
)

// ReservedPrefix is the namespace of the events recorders write
// themselves; no hook payload may name an event in it (compared without
// regard to case).
const ReservedPrefix = "logbook."

// Reserved reports whether name is in the reserved namespace.
func Reserved(name string) bool {
	return len(name) >= len(ReservedPrefix) && strings.EqualFold(name[:len(ReservedPrefix)], ReservedPrefix)
}

// Refusal is the error Record returns for an event it did not record.
type Refusal struct {
	Reason string // one of the constants above
	Err    error
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// refusal names err's reason.
func refusal(payload []byte, err error) *Refusal {
	reason := WriteFailed
	var syn *strictjson.SyntaxError
	switch {
	case len(bytes.TrimSpace(payload)) == 0:
		reason = PayloadEmpty
	case errors.Is(err, strictjson.ErrTooDeep):
		reason = PayloadTooDeep
	case errors.As(err, &syn):
		reason = PayloadNotJSON
	case errors.Is(err, hookevent.ErrNotObject):
		reason = PayloadNotObject
	case errors.Is(err, errNoSession):
		reason = SessionMissing
	case errors.Is(err, journalfile.ErrSessionID):
		reason = SessionInvalid
	}
	return &Refusal{Reason: reason, Err: err}
}

var errNoSession = errors.New("payload has no session_id")

// Options are what a caller adds to Record's arguments; the zero value
// records a Claude Code payload stamped with at, by no named recorder.
type Options struct {
	// Hint is what the hook's command line says about the payload
	// (--harness, --event), for a payload of any harness dialect. The
	// session header names the harness that sent the first event.
	Hint hookevent.Hint
	// Self, when not nil, describes this program: a session whose
	// in-progress file this event creates gets it as its recorder. It is
	// asked only then, never on later events.
	Self journalfile.RecorderSource
	// Now, when not nil, stamps the step under the session's lock
	// (journalfile.AppendNow): now is asked once the lock is held, so at
	// follows seq even when parallel hooks take the lock in another order
	// than they started in, and never goes back within a session. at is
	// then unused.
	Now func() string
	// Rules, when RulesSet, are the redaction rules the caller loaded
	// once from dir/redact.json (nil: the built-in ones): the file is not
	// read again per event.
	Rules    *redact.Redactor
	RulesSet bool
	// Then, when not nil, runs after the append while the session is
	// still locked, so that what it does (sign a checkpoint of the new
	// tip, seal) happens in the order of the appends. Its error is
	// returned as a WRITE_FAILED refusal.
	Then func(j *journalfile.Journal, ev hookevent.Event) error
	// Gate, when not nil, may return a step to append right before the
	// event's own, in the same append (an organization policy's gate step,
	// internal/orgpolicy): the decision and the call land together or not
	// at all.
	Gate func(ev hookevent.Event) *chain.Step
	// Journal, when not nil, gives the session's journal, locked, in
	// place of journalfile.Open, and done is called once the event is
	// recorded, in place of Close: a server keeps each session's Journal
	// open between events (journal's keep.go). It must refuse an invalid
	// session id with journalfile.ValidSessionID's error, as Open does.
	Journal func(session string) (j *journalfile.Journal, done func(), err error)
	// Actor, when not nil, is the member a server adds to the event's
	// step data: who sent it (fleet.ActorKey, in the reserved namespace),
	// replacing any member of that name. A hook never sets it.
	Actor func(ev hookevent.Event) strictjson.Member
}

// Record is the one path by which every recorder, in a hook's process or
// in a server, appends an event. It parses payload (a UTF-8 BOM already
// stripped), stamps it with at (or o.Now), and appends it under the
// session's lock in dir. cwd is used for the session header when the
// payload names none. The returned event is filled as far as parsing got,
// so a caller can report which event failed.
//
// The project's redaction patterns (dir/redact.json, see
// redact.LoadConfig) are applied with the built-in ones. When that file
// exists but cannot be used, the step is still recorded, with its clear
// text withheld (summary and data reduced to what names the event), and
// a *Warning says why: a broken config must neither lose a step nor let a
// secret it was meant to catch through.
func Record(dir string, payload []byte, at, cwd string, o Options) (hookevent.Event, error) {
	r, cfgErr := o.Rules, error(nil)
	if !o.RulesSet {
		r, cfgErr = redact.LoadConfig(dir)
	}
	ev, err := hookevent.ParseRedacted(payload, o.Hint, r)
	if err != nil {
		return ev, refusal(payload, err)
	}
	if d, _ := ev.Step.Data.GetString("event"); Reserved(ev.Name) || Reserved(d) {
		return ev, &Refusal{Reason: EventReserved, Err: fmt.Errorf("the event %q is in the %s namespace, which only the recorder writes: a hook payload cannot name it", clipName(ev.Name, d), ReservedPrefix+"*")}
	}
	if ev.Session == "" {
		return ev, refusal(payload, fmt.Errorf("%s %w", name(ev), errNoSession))
	}
	if cfgErr != nil {
		withhold(&ev.Step)
	}
	if o.Actor != nil {
		stamp(&ev.Step.Data, o.Actor(ev))
	}
	// The gate decides before anything is written: a call is decided
	// even when the journal cannot be opened.
	var gate *chain.Step
	if o.Gate != nil {
		gate = o.Gate(ev)
	}
	open := o.Journal
	if open == nil {
		open = func(id string) (*journalfile.Journal, func(), error) {
			j, err := journalfile.Open(dir, id)
			if err != nil {
				return nil, nil, err
			}
			return j, func() { j.Close() }, nil
		}
	}
	j, done, err := open(ev.Session)
	if err != nil {
		return ev, refusal(payload, err)
	}
	defer done()
	if ev.Cwd != "" {
		cwd = ev.Cwd
	}
	// The header's cwd becomes session.cwd: clear text like any other.
	cwd = r.String(cwd)
	hdr := journalfile.Header{Session: ev.Session, Cwd: cwd, Harness: ev.Harness, Describe: o.Self}
	ev.Step.At = at
	steps := []chain.Step{ev.Step}
	if gate != nil {
		gate.At = at
		steps = []chain.Step{*gate, ev.Step}
	}
	if o.Now != nil {
		_, err = j.AppendNow(hdr, steps, o.Now)
		ev.Step.At = steps[len(steps)-1].At
	} else {
		_, err = j.Append(hdr, steps)
	}
	if err != nil {
		return ev, refusal(payload, err)
	}
	if o.Then != nil {
		if err := o.Then(j, ev); err != nil {
			return ev, &Refusal{Reason: WriteFailed, Err: err}
		}
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

// stamp sets the member m of data (an object; anything else becomes
// one), replacing any member of its name.
func stamp(data *strictjson.Value, m strictjson.Member) {
	if data.Kind != strictjson.Object {
		*data = strictjson.Obj()
	}
	ms := make([]strictjson.Member, 0, len(data.Members)+1)
	for _, x := range data.Members {
		if x.Key != m.Key {
			ms = append(ms, x)
		}
	}
	data.Members = append(ms, m)
}

// clipName is the reserved name to quote: at most 64 bytes.
func clipName(name, data string) string {
	if !Reserved(name) {
		name = data
	}
	if len(name) > 64 {
		name = name[:64] + "…"
	}
	return name
}

func name(ev hookevent.Event) string {
	if ev.Name == "" {
		return "hook"
	}
	return ev.Name
}
