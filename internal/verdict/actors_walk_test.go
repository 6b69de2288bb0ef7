package verdict_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestActorsInTheWalk: the actors of a fleet's record (Outcome.Actors,
// --require-attested) are read as the verifier walks the steps, not by
// parsing the record again. A verdict on a 2,000-step record whose
// every step names its actor allocates at most twice what it does on the
// same record without them (1.5 times: the file is a quarter longer and
// each actor is read); parsing it again made it 4.6 times (and a
// 100,000-step fleet record took 4.6 s to verify, 0.9 s now).
func TestActorsInTheWalk(t *testing.T) {
	plain, err := reviewtest.Big(2000)
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := reviewtest.BigFleet(2000)
	if err != nil {
		t.Fatal(err)
	}
	allocated := func(rec []byte) uint64 {
		verdict.Run(verdict.Inputs{Record: rec})
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for range 3 {
			if o := verdict.Run(verdict.Inputs{Record: rec}); !o.Result.OK {
				t.Fatal(o.Result.Code, o.Result.Detail)
			}
		}
		runtime.ReadMemStats(&m1)
		return (m1.TotalAlloc - m0.TotalAlloc) / 3
	}
	p, f := allocated(plain), allocated(fleet)
	t.Logf("a verdict allocates %d bytes, %d on the fleet's record (%.2f times)", p, f, float64(f)/float64(p))
	if f > 2*p {
		t.Errorf("a verdict on the fleet's record allocates %d bytes, %.2f times the %d of the same record without actors: want at most 2", f, float64(f)/float64(p), p)
	}
	if o := verdict.Run(verdict.Inputs{Record: fleet}); o.Actors == nil || len(o.Actors.Attested) != 1 || len(o.Actors.Asserted) != 1 || o.Actors.Asserted[0] != "alice" {
		t.Errorf("actors %+v, want dev1's credential and alice", o.Actors)
	}
}

// TestActorsEscapedKey: the actor member's key written with escapes
// ("logbook\u002eactor", which the signature allows: it covers the
// canonical form) names the same actors as the plain key. The walk was
// skipped on a byte search for the plain key: Outcome.Actors was nil
// while the review named dev1 and alice. A record with other escapes
// and no actor still names none.
func TestActorsEscapedKey(t *testing.T) {
	rec, err := reviewtest.BigFleet(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"logbook\u002eactor"`, `"\u006cogbook.actor"`, `"\u006C\u006F\u0067\u0062\u006F\u006F\u006B\u002E\u0061\u0063\u0074\u006F\u0072"`} {
		esc := bytes.ReplaceAll(rec, []byte(`"logbook.actor"`), []byte(key))
		if bytes.Equal(esc, rec) {
			t.Fatal("no actor key to escape")
		}
		o := verdict.Run(verdict.Inputs{Record: esc})
		if !o.Result.OK {
			t.Fatal(o.Result.Code, o.Result.Detail)
		}
		if o.Actors == nil || len(o.Actors.Attested) != 1 || len(o.Actors.Asserted) != 1 || o.Actors.Asserted[0] != "alice" {
			t.Errorf("key %s: actors %+v, want dev1's credential and alice", key, o.Actors)
		}
	}
	plain, err := reviewtest.Big(3)
	if err != nil {
		t.Fatal(err)
	}
	if o := verdict.Run(verdict.Inputs{Record: plain}); !o.Result.OK || o.Actors != nil {
		t.Errorf("a record without actors: %v %+v", o.Result.Code, o.Actors)
	}
}
