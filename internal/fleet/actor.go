package fleet

import (
	"errors"
	"fmt"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// ActorKey is the member of a step's data where the server writes who
// sent the event: in the recorders' own namespace (recorder.ReservedPrefix),
// which no hook payload can name. Its value is an object:
//
//	"logbook.actor": {
//	  "attested": {"by": "credential", "tenant": "acme", "subject": "dev1", "credential": "3f2a…"},
//	  "asserted": {"user": "alice"}
//	}
//
// attested is what the server checked (an enrolled credential, an OIDC
// token: "issuer" names its issuer; or the shared token, "by": "token"
// alone); asserted is what the client only said (the payload's user or
// user_email, the X-Logbook-User header), absent when it said nothing.
const ActorKey = "logbook.actor"

// Identity is one side of an actor.
type Identity struct {
	By         string `json:"by,omitempty"` // attested only: ByCredential, ByOIDC or ByToken
	Tenant     string `json:"tenant,omitempty"`
	Subject    string `json:"subject,omitempty"`
	Credential string `json:"credential,omitempty"`
	Issuer     string `json:"issuer,omitempty"`
	User       string `json:"user,omitempty"` // asserted only
}

// Actor is who sent a step's event.
type Actor struct {
	Attested *Identity `json:"attested,omitempty"`
	Asserted *Identity `json:"asserted,omitempty"`
}

// ErrActor is ActorOf's error for an actor member that is not one.
var ErrActor = errors.New("logbook.actor is not an actor")

// ActorOf reads the actor of a step from its data: ok is false when the
// step has none (a server without a fleet, a note, a gate step), err when
// the member is there and malformed. It is the one reader of the member:
// review, logbook-verify, the page and the index use it.
func ActorOf(data *strictjson.Value) (a Actor, ok bool, err error) {
	if data == nil || data.Kind != strictjson.Object {
		return a, false, nil
	}
	v := data.Get(ActorKey)
	if v == nil {
		return a, false, nil
	}
	if v.Kind != strictjson.Object {
		return a, true, ErrActor
	}
	for _, m := range v.Members {
		id, err := identity(&m.Value)
		if err != nil {
			return a, true, fmt.Errorf("%w: %s: %v", ErrActor, m.Key, err)
		}
		switch m.Key {
		case "attested":
			if id.By == "" || id.User != "" {
				return a, true, fmt.Errorf("%w: attested needs by, and no user", ErrActor)
			}
			a.Attested = id
		case "asserted":
			if id.By != "" {
				return a, true, fmt.Errorf("%w: asserted has no by", ErrActor)
			}
			a.Asserted = id
		default:
			return a, true, fmt.Errorf("%w: unknown member %q", ErrActor, m.Key)
		}
	}
	if a.Attested == nil {
		return a, true, fmt.Errorf("%w: no attested identity", ErrActor)
	}
	// A credential or an OIDC token names its developer (an enrollment
	// and an issuer's claims both need a tenant and a subject). One that
	// named no one passed --require-attested as "no owner yet" beside
	// steps naming the owner.
	if a.Attested.By != ByToken && (a.Attested.Tenant == "" || a.Attested.Subject == "") {
		return a, true, fmt.Errorf("%w: attested by %s names no tenant or no subject", ErrActor, a.Attested.By)
	}
	return a, true, nil
}

func identity(v *strictjson.Value) (*Identity, error) {
	if v.Kind != strictjson.Object {
		return nil, errors.New("not an object")
	}
	id := &Identity{}
	for _, m := range v.Members {
		if m.Value.Kind != strictjson.String {
			return nil, fmt.Errorf("%s is not a string", m.Key)
		}
		s := m.Value.Str
		switch m.Key {
		case "by":
			if s != ByCredential && s != ByOIDC && s != ByToken {
				return nil, fmt.Errorf("by %q", s)
			}
			id.By = s
		case "tenant":
			id.Tenant = s
		case "subject":
			id.Subject = s
		case "credential":
			id.Credential = s
		case "issuer":
			id.Issuer = s
		case "user":
			id.User = s
		default:
			return nil, fmt.Errorf("unknown member %q", m.Key)
		}
	}
	return id, nil
}

// Member is the actor member the server writes into a step's data: p
// attested, user (what the client claimed, "" for nothing) asserted.
func Member(p Principal, user string) strictjson.Member {
	return strictjson.Member{Key: ActorKey, Value: value(p, user)}
}

func value(p Principal, user string) strictjson.Value {
	att := []strictjson.Member{{Key: "by", Value: strictjson.Str(p.By)}}
	add := func(ms []strictjson.Member, k, v string) []strictjson.Member {
		if v != "" {
			ms = append(ms, strictjson.Member{Key: k, Value: strictjson.Str(v)})
		}
		return ms
	}
	att = add(att, "tenant", p.Tenant)
	att = add(att, "subject", p.Subject)
	att = add(att, "credential", p.Credential)
	att = add(att, "issuer", p.Issuer)
	ms := []strictjson.Member{{Key: "attested", Value: strictjson.Obj(att...)}}
	if user != "" {
		ms = append(ms, strictjson.Member{Key: "asserted", Value: strictjson.Obj(strictjson.Member{Key: "user", Value: strictjson.Str(user)})})
	}
	return strictjson.Obj(ms...)
}

// Owner is the session owner an attested identity names (the zero
// Owner for the shared token).
func (id *Identity) Owner() Owner {
	if id == nil || id.By == ByToken {
		return Owner{}
	}
	return Owner{Tenant: id.Tenant, Subject: id.Subject}
}
