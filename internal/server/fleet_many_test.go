package server_test

import (
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestFleetManyDevelopers: 200 developers enrolled, 16 clients sending
// at once, each as another developer, and each trying once to write into
// the next one's session: every record verifies at level server with
// --require-attested and names its own developer as its attested actor,
// and every cross write is refused ACTOR_MISMATCH with nothing appended.
func TestFleetManyDevelopers(t *testing.T) {
	ff := newFleet(t)
	const devs, clients, calls = 200, 16, 10
	creds := make([]string, devs)
	for i := range creds {
		code, err := ff.store.Enroll("acme", fmt.Sprintf("dev%03d", i), nil, time.Hour, time.Now(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if creds[i], _, err = ff.store.Redeem(code, time.Now(), rand.Reader); err != nil {
			t.Fatal(err)
		}
	}
	dev := func(c int) int { return c * (devs / clients) } // 16 developers spread over the 200
	var wg, started sync.WaitGroup
	started.Add(clients)
	errs := make(chan error, clients*(2*calls+2))
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session := fmt.Sprintf("s-%03d", dev(c))
			for i := 0; i < 2*calls; i++ {
				name := []string{"PreToolUse", "PostToolUse"}[i%2]
				if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", creds[dev(c)], event(session, name, i/2)); st != 200 {
					errs <- fmt.Errorf("%s event %d: %d %s", session, i, st, body)
				}
				if i == 0 {
					// Every session begun before any cross write.
					started.Done()
					started.Wait()
				}
				if i == calls {
					// Into the next client's session, which has begun.
					other := fmt.Sprintf("s-%03d", dev((c+1)%clients))
					if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", creds[dev(c)], event(other, "PreToolUse", 99)); st != 403 || errCode(body) != "ACTOR_MISMATCH" {
						errs <- fmt.Errorf("cross write into %s: %d %s", other, st, body)
					}
				}
			}
			if st, body := do(t, "POST", ff.ts.URL+"/v1/hooks/claude-code", creds[dev(c)], event(session, "SessionEnd", 0)); st != 200 {
				errs <- fmt.Errorf("%s end: %d %s", session, st, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for c := 0; c < clients; c++ {
		session := fmt.Sprintf("s-%03d", dev(c))
		st, rec := do(t, "GET", ff.ts.URL+"/v1/sessions/"+session+"/record", "read-token", nil)
		_, cp := do(t, "GET", ff.ts.URL+"/v1/sessions/"+session+"/record-checkpoint", "read-token", nil)
		if st != 200 {
			t.Fatalf("%s: %d %s", session, st, rec)
		}
		o := verdict.Run(verdict.Inputs{Record: []byte(rec), Checkpoints: [][]byte{[]byte(cp)},
			CheckpointKeys: []checkpoint.Key{{Pub: ff.pub}}, RequireAttested: true})
		if !o.Result.OK || o.Level != "server" {
			t.Errorf("%s: %s %s level %q", session, o.Result.Code, o.Result.Detail, o.Level)
			continue
		}
		if o.Result.StepCount != 2*calls+1 {
			t.Errorf("%s: %d steps, want %d (a cross write appended?)", session, o.Result.StepCount, 2*calls+1)
		}
		want := fmt.Sprintf("dev%03d", dev(c))
		if a := o.Actors; a == nil || len(a.Attested) != 1 || a.Attested[0].Subject != want {
			t.Errorf("%s: actors %+v, want %s", session, a, want)
		}
	}
}
