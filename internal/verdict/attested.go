package verdict

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Actors are who sent a record's events, as a fleet's server wrote them
// (fleet.ActorOf): the distinct attested identities and asserted users,
// in order of first appearance. --json's "actors".
type Actors struct {
	Attested []fleet.Identity `json:"attested"`
	Asserted []string         `json:"asserted"`
}

var actorKey = []byte(`"` + fleet.ActorKey + `"`)

// mayNameActors reports whether rec may hold the actor member: its key
// as it is, or written with \u escapes ("logbook\u002eactor"), which
// the signature allows (it covers the canonical form) and which hid the
// actors from Outcome.Actors while the review, parsing, named them. Each
// string holding an escape is decoded once, in place, and only as far as
// it matches the key: a record of escapes costs a pass over its bytes.
func mayNameActors(rec []byte) bool {
	if bytes.Contains(rec, actorKey) {
		return true
	}
	const most = 6 * len(fleet.ActorKey) // every byte a \uXXXX
	for off := 0; ; {
		i := bytes.Index(rec[off:], []byte(`\u`))
		if i < 0 {
			return false
		}
		i += off
		off = i + 2
		// The key holds no quote: its opening quote is the last one
		// before the escape, its closing one the first after.
		lo := max(0, i-most)
		s := bytes.LastIndexByte(rec[lo:i], '"')
		e := bytes.IndexByte(rec[i:min(len(rec), i+most)], '"')
		if s < 0 || e < 0 {
			continue
		}
		off = i + e + 1 // the rest of this string is not looked at again
		if isActorKey(rec[lo+s+1 : i+e]) {
			return true
		}
	}
}

// isActorKey reports whether the JSON string body b decodes to
// fleet.ActorKey, each byte of which is ASCII.
func isActorKey(b []byte) bool {
	k := fleet.ActorKey
	for len(b) > 0 {
		if len(k) == 0 {
			return false
		}
		c := b[0]
		if c == '\\' {
			if len(b) < 6 || b[1] != 'u' {
				return false
			}
			r, err := strconv.ParseUint(string(b[2:6]), 16, 16)
			if err != nil {
				return false
			}
			c, b = byte(r), b[6:]
			if r >= 0x80 {
				return false
			}
		} else {
			b = b[1:]
		}
		if c != k[0] {
			return false
		}
		k = k[1:]
	}
	return len(k) == 0
}

// actorWalk reads the actors of a record's steps as the verifier walks
// them (record.Options.EachStep), so that no step is read twice: the
// record is not parsed again (a second parse of a 100,000-step fleet
// record cost more than the verification). It keeps the distinct actors
// (Outcome.Actors) and what step 11's --require-attested needs: the
// first step that fails it, and the one owner of the rest.
type actorWalk struct {
	next   func(int, *strictjson.Value) // the caller's EachStep, if any
	actors Actors
	found  bool // a step named an actor (Actors is nil otherwise)
	// last is the last actor met: a session's steps name the same one,
	// which is not compared to every one kept again.
	last fleet.Actor
	// --require-attested: the first failing step's code and detail, or
	// the owner the event steps name and the first step that named it.
	code   format.Code
	detail string
	owner  fleet.Owner
	first  int
}

// chain returns the EachStep that reads the actors, then calls each.
func (w *actorWalk) chain(each func(int, *strictjson.Value)) func(int, *strictjson.Value) {
	w.next = each
	return w.each
}

func (w *actorWalk) each(i int, st *strictjson.Value) {
	d := st.Get("data")
	act, ok, err := fleet.ActorOf(d)
	if ok && err == nil {
		w.add(act)
	}
	w.attested(i, st, d, act, ok, err)
	if w.next != nil {
		w.next(i, st)
	}
}

// add notes act among the distinct actors.
func (w *actorWalk) add(act fleet.Actor) {
	w.found = true
	if same(act.Attested, w.last.Attested) && same(act.Asserted, w.last.Asserted) {
		return
	}
	w.last = act
	if id := *act.Attested; !containsIdentity(w.actors.Attested, id) {
		w.actors.Attested = append(w.actors.Attested, id)
	}
	if act.Asserted != nil && act.Asserted.User != "" && !containsString(w.actors.Asserted, act.Asserted.User) {
		w.actors.Asserted = append(w.actors.Asserted, act.Asserted.User)
	}
}

func same(a, b *fleet.Identity) bool { return a == b || a != nil && b != nil && *a == *b }

// result is Outcome.Actors: nil when no step names an actor (a record of
// a server without a fleet, or of a hook).
func (w *actorWalk) result() *Actors {
	if !w.found {
		return nil
	}
	a := w.actors
	if a.Attested == nil {
		a.Attested = []fleet.Identity{}
	}
	if a.Asserted == nil {
		a.Asserted = []string{}
	}
	return &a
}

func containsIdentity(ids []fleet.Identity, id fleet.Identity) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// attested is step 11's second check (--require-attested) on step i:
// every event step (not a gate step, not a note in the recorders'
// logbook. namespace) carries an actor attested by an enrolled credential
// or an OIDC token, and all of them name one developer. The first step
// that fails is kept.
func (w *actorWalk) attested(i int, st, d *strictjson.Value, act fleet.Actor, ok bool, err error) {
	if w.code != "" {
		return
	}
	if kind, _ := st.GetString("kind"); kind == format.KindGate {
		return
	}
	if ev, _ := d.GetString("event"); strings.HasPrefix(ev, "logbook.") {
		return
	}
	switch {
	case err != nil:
		w.code, w.detail = format.ActorUnattested, fmt.Sprintf("step %d: %v", i, err)
		return
	case !ok:
		w.code, w.detail = format.ActorUnattested, fmt.Sprintf("step %d names no actor: the server that recorded it had no fleet", i)
		return
	case act.Attested.By == fleet.ByToken:
		w.code, w.detail = format.ActorUnattested, fmt.Sprintf("step %d was sent with the server's shared token, which names nobody", i)
		return
	}
	o := act.Attested.Owner()
	if w.owner == (fleet.Owner{}) {
		w.owner, w.first = o, i
	} else if o != w.owner {
		w.code, w.detail = format.ActorMismatch, fmt.Sprintf("step %d was sent by %s in %s, step %d by %s in %s", i, o.Subject, o.Tenant, w.first, w.owner.Subject, w.owner.Tenant)
	}
}

// requireAttested is step 11's second check (--require-attested), at
// level server or logged (only a server's checkpoint shows the steps are
// the server's), of what the walk found. It returns the code and
// detail, or "".
func (w *actorWalk) requireAttested(level string) (format.Code, string) {
	switch {
	case level == checkpoint.LevelLocal:
		return format.ActorUnattested, "level local: only a server's checkpoint can show that a server wrote the actors"
	case w.code != "":
		return w.code, w.detail
	case w.owner == (fleet.Owner{}):
		return format.ActorUnattested, "no event step"
	}
	return "", ""
}
