package fleet_test

import (
	"errors"
	"testing"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestActorOf: what Member writes ActorOf reads back; a malformed
// member is an error, none is not.
func TestActorOf(t *testing.T) {
	p := fleet.Principal{By: fleet.ByOIDC, Tenant: "acme", Subject: "ci1", Issuer: "https://issuer.example", Roles: []fleet.Role{fleet.Developer}}
	data := strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str("PreToolUse")}, fleet.Member(p, "alice"))
	a, ok, err := fleet.ActorOf(&data)
	if !ok || err != nil || a.Attested.Subject != "ci1" || a.Attested.Issuer != p.Issuer || a.Asserted.User != "alice" || a.Attested.Owner() != fleet.OwnerOf(p) {
		t.Fatalf("%+v %v %v", a, ok, err)
	}
	none := strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str("Stop")})
	if _, ok, err := fleet.ActorOf(&none); ok || err != nil {
		t.Errorf("no actor: %v %v", ok, err)
	}
	for name, text := range map[string]string{
		"not an object":   `{"logbook.actor": "dev1"}`,
		"no attested":     `{"logbook.actor": {"asserted": {"user": "x"}}}`,
		"unknown by":      `{"logbook.actor": {"attested": {"by": "magic", "subject": "x"}}}`,
		"asserted has by": `{"logbook.actor": {"attested": {"by": "token"}, "asserted": {"by": "token"}}}`,
		"extra member":    `{"logbook.actor": {"attested": {"by": "token"}, "other": {}}}`,
		"number":          `{"logbook.actor": {"attested": {"by": "credential", "subject": 1}}}`,
		"no subject":      `{"logbook.actor": {"attested": {"by": "credential", "tenant": "acme", "credential": "3f2a9c0d"}}}`,
		"no tenant":       `{"logbook.actor": {"attested": {"by": "oidc", "subject": "ci1", "issuer": "https://i"}}}`,
		"empty subject":   `{"logbook.actor": {"attested": {"by": "credential", "tenant": "acme", "subject": ""}}}`,
	} {
		v, err := strictjson.Parse([]byte(text), strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, err := fleet.ActorOf(v); !ok || !errors.Is(err, fleet.ErrActor) {
			t.Errorf("%s: %v %v", name, ok, err)
		}
	}
}
