package review_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// reviewBoth reviews rec twice: from the steps the verifier handed over
// (FromCollected, which folds them as they come) and from the record
// read again whole (FromRecord, which holds every step), and returns both
// as JSON and as text.
func reviewBoth(t *testing.T, rec []byte) (collected, whole [2][]byte) {
	t.Helper()
	var col review.Collector
	res := record.Verify(rec, record.Options{EachStep: col.Step, Top: col.Top})
	show := func(r *review.Review, err error) [2][]byte {
		if err != nil {
			return [2][]byte{[]byte(err.Error())}
		}
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		// What --json leaves out and OTLP logs send: each call's gate
		// step and each sub-agent's marks.
		hidden, err := json.Marshal(hiddenSteps(r))
		if err != nil {
			t.Fatal(err)
		}
		js = append(append(js, '\n'), hidden...)
		var text bytes.Buffer
		if err := review.WriteText(&text, r, review.TextOptions{Width: 100}); err != nil {
			t.Fatal(err)
		}
		return [2][]byte{js, text.Bytes()}
	}
	return show(review.FromCollected(&col, rec, res, false)), show(review.FromRecord(rec, res, false))
}

// hiddenSteps lists the steps rows carry outside their JSON: a call's
// GateStep, a sub-agent's Marks.
func hiddenSteps(r *review.Review) []any {
	var out []any
	var walk func([]review.Item)
	walk = func(items []review.Item) {
		for _, it := range items {
			if c := it.Call; c != nil {
				out = append(out, c.ToolUseID, c.GateStep())
			}
			if a := it.SubAgent; a != nil {
				out = append(out, a.ID, a.Marks)
				walk(a.Items)
			}
		}
	}
	for _, tu := range r.Turns {
		walk(tu.Items)
	}
	return out
}

// TestStreamBuildMatchesBuild: the review built from the steps as they
// stream by is the one built from every step held, byte for byte in JSON
// and text, on every harness's synthesized session, the Claude Code
// sessions, the gate and record fixtures (refused ones included), and
// shuffled and thinned copies of the sessions (posts before pres, calls
// without an end, sub-agents out of place).
func TestStreamBuildMatchesBuild(t *testing.T) {
	t.Parallel()
	var sessions [][]string
	add := func(events [][]byte) {
		var s []string
		for _, e := range events {
			s = append(s, string(e))
		}
		sessions = append(sessions, s)
	}
	for _, name := range []string{"short", "tool_heavy", "subagent", "long"} {
		s, ok := synth.Claude(name)
		if !ok {
			t.Fatalf("no Claude session %q", name)
		}
		add(s.Events)
	}
	for _, h := range hookevent.Harnesses {
		if s, ok := synth.Dialect(h); ok && s.Config == nil {
			add(s.Events)
		}
	}
	sessions = append(sessions, reviewtest.Session, reviewtest.Repeat(200),
		append(append([]string{}, reviewtest.Session...), // a stop of no known sub-agent (TestSubAgentMarks)
			`{"session_id":"s1","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag-gone","agent_type":"Plan"}`))
	rng := rand.New(rand.NewPCG(1, 2))
	n := len(sessions)
	for k := 0; k < n; k++ {
		for range 3 {
			s := append([]string(nil), sessions[k]...)
			rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
			sessions = append(sessions, s)
			var thin []string
			for _, e := range sessions[k] {
				if rng.IntN(4) != 0 {
					thin = append(thin, e)
				}
			}
			sessions = append(sessions, thin)
		}
	}
	var records [][]byte
	for _, s := range sessions {
		if rec, err := reviewtest.Record(s); err == nil {
			records = append(records, rec)
		}
	}
	for _, dir := range []string{"../../testdata/gate", "../../testdata/records"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no fixtures in %s", dir)
		}
		for _, f := range files {
			rec, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, rec)
		}
	}
	if len(records) < 100 {
		t.Fatalf("only %d records", len(records))
	}
	for i, rec := range records {
		got, want := reviewBoth(t, rec)
		if !bytes.Equal(got[0], want[0]) {
			t.Fatalf("record %d: JSON differs:\nstreamed %s\nheld     %s", i, got[0], want[0])
		}
		if !bytes.Equal(got[1], want[1]) {
			t.Fatalf("record %d: text differs:\nstreamed %s\nheld     %s", i, got[1], want[1])
		}
	}
}

// reviewHeap is the live heap after reviewing rec from the verifier's
// steps, the record's own bytes not counted.
func reviewHeap(t *testing.T, rec []byte) uint64 {
	var col review.Collector
	res := record.Verify(rec, record.Options{EachStep: col.Step, Top: col.Top})
	r, err := review.FromCollected(&col, rec, res, false)
	if err != nil || !res.OK {
		t.Fatalf("%v %s", err, res.Detail)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(r)
	return ms.HeapAlloc
}

// TestReviewHeldPerStep: what a review holds grows by at most a few
// hundred bytes a step (its rows: a call's summary, not its events), at
// most 0.3 bytes per byte of the record (0.26 now; 0.37 with a Call of
// 288 bytes and each prompt copied whole), so that reviewing a record
// stays well within twice the file's size. Measured as
// the difference between records of 4,000 and 12,000 steps, the bytes of
// the records themselves taken out; deterministic (live heap after a GC).
func TestReviewHeldPerStep(t *testing.T) {
	held := func(n int) (heap uint64, size int) {
		rec, err := reviewtest.Big(n)
		if err != nil {
			t.Fatal(err)
		}
		return reviewHeap(t, rec) - uint64(len(rec)), len(rec)
	}
	held(100) // what is made once per process
	base, small := held(4000)
	more, large := held(12000)
	perStep := float64(int64(more)-int64(base)) / 8000
	perFileByte := float64(int64(more)-int64(base)) / float64(large-small)
	t.Logf("held per step: %.0f bytes (%.2f of each record byte)", perStep, perFileByte)
	if perFileByte > 0.3 {
		t.Fatalf("a review holds %.2f bytes per byte of the record (%.0f a step), want at most 0.3", perFileByte, perStep)
	}
}

// collectHeld is the live heap, the record's bytes not counted, once the
// verifier has handed rec's steps to a Collector and before the rows are
// placed: the moment of a review's peak (the record, its calls and kept
// steps, the map that joins them), and the allocations the collection
// made beyond the verifier's own.
func collectHeld(t *testing.T, rec []byte) (heap uint64, allocs uint64) {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	res := record.Verify(rec, record.Options{})
	runtime.ReadMemStats(&ms)
	verifyAllocs := ms.Mallocs - before
	var col review.Collector
	col.Expect(len(rec))
	runtime.ReadMemStats(&ms)
	before = ms.Mallocs
	res = record.Verify(rec, record.Options{EachStep: col.Step, Top: col.Top})
	runtime.ReadMemStats(&ms)
	allocs = ms.Mallocs - before - verifyAllocs
	if !res.OK {
		t.Fatal(res.Detail)
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(&col)
	return ms.HeapAlloc - uint64(len(rec)), allocs
}

// TestReviewCollectHeld: at a review's peak (the verifier done, the rows
// not yet placed) what the collection holds grows by at most 0.31 bytes
// per byte of record (0.285 now, with a Call of 176 bytes, not 288, and
// an Event of 136, not 192; 0.41 before that; 0.50 while a kept step's
// event row was a whole Step; 0.61 before the rows were made compact:
// interned ids in 12 bytes a step, calls and kept steps in chunks), and
// it allocates at most 0.75 times a step (0.63 now: a call's figures are
// values, its one file a bit; 0.86 before; 3.48 before the rows were
// made compact). Both are differences between records of 4,000 and
// 12,000 steps (what is made once taken out), deterministic: the live
// heap after a GC, and the runtime's count of allocations, the
// verifier's own taken out. With this, a 100,000-step record is
// reviewed within about 1.7 times its size (docs/performance.md).
func TestReviewCollectHeld(t *testing.T) {
	// Not parallel: the heap and the count of allocations are the
	// process's (as in TestReviewHeldPerStep).
	held := func(n int) (heap, allocs uint64, size int) {
		rec, err := reviewtest.Big(n)
		if err != nil {
			t.Fatal(err)
		}
		h, a := collectHeld(t, rec)
		return h, a, len(rec)
	}
	held(100)
	h1, a1, s1 := held(4000)
	h2, a2, s2 := held(12000)
	perByte := float64(int64(h2)-int64(h1)) / float64(s2-s1)
	perStep := float64(int64(a2)-int64(a1)) / 8000
	t.Logf("collection holds %.3f bytes per record byte, allocates %.2f times a step", perByte, perStep)
	if perByte > 0.31 {
		t.Errorf("the collection holds %.3f bytes per byte of the record, want at most 0.31", perByte)
	}
	if perStep > 0.75 {
		t.Errorf("the collection allocates %.2f times a step, want at most 0.75", perStep)
	}
}
