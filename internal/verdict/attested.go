package verdict

import (
	"bytes"
	"fmt"
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

// actorsOf reads the actors of rec; nil when it names none (a record of
// a server without a fleet, or of a hook).
func actorsOf(rec []byte) *Actors {
	if !bytes.Contains(rec, actorKey) {
		return nil
	}
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil || v.Get("steps") == nil {
		return nil
	}
	a := &Actors{Attested: []fleet.Identity{}, Asserted: []string{}}
	for i := range v.Get("steps").Items {
		act, ok, err := fleet.ActorOf(v.Get("steps").Items[i].Get("data"))
		if !ok || err != nil {
			continue
		}
		if id := *act.Attested; !containsIdentity(a.Attested, id) {
			a.Attested = append(a.Attested, id)
		}
		if act.Asserted != nil && act.Asserted.User != "" && !containsString(a.Asserted, act.Asserted.User) {
			a.Asserted = append(a.Asserted, act.Asserted.User)
		}
	}
	return a
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

// requireAttested is step 11's second check (--require-attested): at
// level server or logged (only a server's checkpoint shows the steps are
// the server's), every event step (not a gate step, not a note in the
// recorders' logbook. namespace) carries an actor attested by an
// enrolled credential or an OIDC token, and all of them name one
// developer. It returns the code and detail, or "".
func requireAttested(rec []byte, level string) (format.Code, string) {
	if level == checkpoint.LevelLocal {
		return format.ActorUnattested, "level local: only a server's checkpoint can show that a server wrote the actors"
	}
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil || v.Get("steps") == nil {
		return format.ActorUnattested, "the record cannot be read again"
	}
	var owner fleet.Owner
	var first int
	for i := range v.Get("steps").Items {
		st := &v.Get("steps").Items[i]
		d := st.Get("data")
		if kind, _ := st.GetString("kind"); kind == format.KindGate {
			continue
		}
		if ev, _ := d.GetString("event"); strings.HasPrefix(ev, "logbook.") {
			continue
		}
		act, ok, err := fleet.ActorOf(d)
		switch {
		case err != nil:
			return format.ActorUnattested, fmt.Sprintf("step %d: %v", i, err)
		case !ok:
			return format.ActorUnattested, fmt.Sprintf("step %d names no actor: the server that recorded it had no fleet", i)
		case act.Attested.By == fleet.ByToken:
			return format.ActorUnattested, fmt.Sprintf("step %d was sent with the server's shared token, which names nobody", i)
		}
		o := act.Attested.Owner()
		if owner == (fleet.Owner{}) {
			owner, first = o, i
		} else if o != owner {
			return format.ActorMismatch, fmt.Sprintf("step %d was sent by %s in %s, step %d by %s in %s", i, o.Subject, o.Tenant, first, owner.Subject, owner.Tenant)
		}
	}
	if owner == (fleet.Owner{}) {
		return format.ActorUnattested, "no event step"
	}
	return "", ""
}
