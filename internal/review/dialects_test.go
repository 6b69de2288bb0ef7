package review_test

import (
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// TestDialects: every harness's synthesized session (internal/testkit/synth, in
// each harness's documented shape) reviews to one row per tool call: a
// call with an id is one row whatever its events, and a harness without
// ids has its pre- and post-events paired, with no gap claimed.
func TestDialects(t *testing.T) {
	for _, h := range append(append([]string{}, hookevent.Harnesses...), "copilot-cli-snake") {
		s, ok := synth.Dialect(h)
		if !ok {
			t.Fatalf("no session for %s", h)
		}
		var stepsJSON []byte
		prev := ""
		ids := map[string]bool{}
		pres, posts := 0, 0
		stepsJSON = append(stepsJSON, '[')
		for i, p := range s.Events {
			hint := hookevent.Hint{Harness: s.Harness}
			if s.Config != nil {
				hint.Event = s.Config[i]
			}
			ev, err := hookevent.ParseWith(p, hint)
			if err != nil {
				t.Fatalf("%s %d: %v", h, i, err)
			}
			st := ev.Step
			st.At = time.Date(2026, 5, 1, 10, 0, i, 0, time.UTC).Format(time.RFC3339)
			canon, hash, err := chain.Link(st, int64(i), prev)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				stepsJSON = append(stepsJSON, ',')
			}
			stepsJSON = append(stepsJSON, canon...)
			prev = hash
			id, _ := st.Data.GetString("toolUseId")
			switch ev.Name {
			case "PreToolUse":
				pres++
				if id != "" {
					ids[id] = true
				}
			case "PostToolUse", "PostToolUseFailure":
				posts++
				if id != "" {
					ids[id] = true
				}
			}
		}
		stepsJSON = append(stepsJSON, ']')
		rec, err := record.Assemble(record.Session{ID: "d", Agent: h, Cwd: "/w", StartedAt: "2026-05-01T10:00:00Z",
			EndedAt: time.Date(2026, 5, 1, 10, 0, len(s.Events)-1, 0, time.UTC).Format(time.RFC3339)}, stepsJSON, len(s.Events), prev, keyForDialects)
		if err != nil {
			t.Fatal(err)
		}
		res := record.Verify(rec, record.Options{})
		r, err := review.FromRecord(rec, res, false)
		if err != nil || !res.OK {
			t.Fatalf("%s: %v %s", h, err, res.Detail)
		}
		want := len(ids)
		if len(ids) == 0 {
			want = pres // no ids: one row per pre-event, posts paired to them
			if posts > pres {
				want = posts
			}
		}
		if r.Summary.Calls != want || review.CountCalls(r.Turns) != want {
			t.Errorf("%s: %d calls (%d rows), want %d (ids %d, pre %d, post %d)", h, r.Summary.Calls, review.CountCalls(r.Turns), want, len(ids), pres, posts)
		}
		if len(ids) == 0 && r.Summary.Gaps.Total()-r.Summary.Gaps.MissingSessionStart != 0 {
			t.Errorf("%s: gaps claimed without ids: %+v", h, r.Summary.Gaps)
		}
		t.Logf("%s: %d events, %d calls", h, len(s.Events), r.Summary.Calls)
	}
}

var keyForDialects = reviewtestKey()
