package record_test

import (
	"runtime"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/record"
)

// TestVerifyMemory bounds what verifying a 20,000-step record allocates,
// as a multiple of the record's size: the signed bytes (spec §6 signs the
// whole envelope) are hashed as they are made, never held, and per-step
// parsing reuses its memory, so it is well under the record's own size
// (0.4× it; holding the signed bytes again would add 1×). Buffers the
// collector counts, touched or not, drive the heap's growth (issue 22: a
// signed-bytes buffer of twice the file made verify's peak 5× the file).
// Deterministic: bytes allocated, not time or resident memory.
func TestVerifyMemory(t *testing.T) {
	base := baseSteps()
	steps := make([]chain.Step, 0, 20000)
	for i := 0; i < 20000; i++ {
		steps = append(steps, base[i%len(base)])
	}
	rec := assemble(steps, fixtureKey("fixture"))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := record.Verify(rec, record.Options{})
	runtime.ReadMemStats(&after)
	if !r.OK {
		t.Fatal(r.Detail)
	}
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(rec))
	t.Logf("record %d bytes, verify allocated %.2f× it", len(rec), ratio)
	if ratio > limitVerifyAlloc {
		t.Fatalf("verify allocated %.2f× the record, want at most %.1f×", ratio, limitVerifyAlloc)
	}
}

const limitVerifyAlloc = 1.0
