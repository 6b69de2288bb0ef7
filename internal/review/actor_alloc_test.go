package review

import (
	"bytes"
	"testing"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// TestActorStepAllocs: the reviewer's per-step path (streamBuild.add, what
// a 100,000-step record goes through once per step) on a step a fleet's
// server wrote, against the same step without its actor. The actor costs
// what reading it takes (the Actor and its two identities); naming it
// (AttestedName) and gathering it for the summary cost nothing once it
// has been met.
func TestActorStepAllocs(t *testing.T) {
	plain := []byte(`{"seq":0,"at":"2026-05-01T10:00:00Z","kind":"tool","summary":"s","data":{"event":"Notification","message":"m"},"inputsSha256":[],"outputsSha256":[],"prev":null,"hash":"h"}`)
	member := fleet.Member(fleet.Principal{By: fleet.ByCredential, Tenant: "acme", Subject: "dev1", Credential: "3f2a9c"}, "alice")
	text, err := jcs.Append([]byte(`"message":"m","logbook.actor":`), &member.Value)
	if err != nil {
		t.Fatal(err)
	}
	withActor := bytes.Replace(plain, []byte(`"message":"m"`), text, 1)
	allocs := func(step []byte) float64 {
		v, err := strictjson.Parse(step, strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := newStreamBuild(1000)
		b.add(v) // the first step grows what the next ones reuse
		return testing.AllocsPerRun(200, func() { b.add(v) })
	}
	a, p := allocs(withActor), allocs(plain)
	t.Logf("a step: %.1f allocations, %.1f with its actor", p, a)
	if a-p > 3 {
		t.Errorf("a fleet step costs %.1f allocations more than the same step without its actor, want at most 3 (the Actor and its identities)", a-p)
	}
}
