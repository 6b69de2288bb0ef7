package verdict_test

import (
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
