package chain

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"strconv"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Walker is the one walk of a hash chain (spec §5; §7 steps 3 and 4): step
// i has seq i, a prev that is null for the first step and the previous
// step's recomputed hash after it, and a hash that recomputes. The
// verifier, the journal reader and --follow all walk with it. Failures
// are *format.RefusalError with STEP_OUT_OF_ORDER or CHAIN_BROKEN, naming
// the step as steps[i]; a caller adds where (a file, a line). After a
// failure the walker is not advanced: the caller stops, or keeps only the
// first failure.
type Walker struct {
	// Canonicalizer holds the canonical bytes of every step Step has
	// walked, one after another; a caller may append separators to B, or
	// reset it to keep none.
	Canonicalizer
	n   int64
	tip [64]byte // recomputed hash of the last step
	h   hash.Hash
}

// Count is the number of steps walked so far.
func (w *Walker) Count() int64 { return w.n }

// Tip is the last walked step's hash, "" before the first.
func (w *Walker) Tip() string {
	if w.n == 0 {
		return ""
	}
	return string(w.tip[:])
}

// Step checks v, the next step, and appends its canonical bytes to w.B.
func (w *Walker) Step(v *strictjson.Value) error {
	if err := Seq(w.n, v.Get("seq")); err != nil {
		return err
	}
	start := len(w.B)
	from, to, err := w.AppendCut(v, "hash")
	if err != nil {
		return format.Refuse(format.ChainBroken, fmt.Sprintf("steps[%d] has no canonical form: %v", w.n, err))
	}
	prev := v.Get("prev")
	stated, _ := v.GetString("hash")
	return w.Link(w.B[start:], from-start, to-start, prev == nil || prev.Kind == strictjson.Null, str(prev), stated)
}

func str(v *strictjson.Value) string {
	if v == nil || v.Kind != strictjson.String {
		return "\x00" // never a hash
	}
	return v.Str
}

// Link checks the next step's links, given its canonical bytes with its
// "hash" member at [from, to) (as jcs.AppendCut reports them), whether its
// prev is null, its prev otherwise, and its hash as stated. It does not
// check seq: the verifier checks every seq before any hash (Seq).
func (w *Walker) Link(step []byte, from, to int, prevNull bool, prev, stated string) error {
	if w.h == nil {
		w.h = sha256.New()
	}
	i := w.n
	switch {
	case i == 0 && !prevNull:
		return format.Refuse(format.ChainBroken, "steps[0].prev is not null")
	case i > 0 && (prevNull || prev != string(w.tip[:])):
		return format.Refuse(format.ChainBroken, fmt.Sprintf("steps[%d].prev is not the hash of steps[%d]", i, i-1))
	}
	var sum [64]byte
	HashCut(w.h, step, from, to, &sum)
	if stated != string(sum[:]) {
		return format.Refuse(format.ChainBroken, fmt.Sprintf("steps[%d].hash does not recompute", i))
	}
	w.tip = sum
	w.n++
	return nil
}

// Seq returns a STEP_OUT_OF_ORDER refusal when seq, step i's "seq", is not
// the number i (-0 is 0, spec §2).
func Seq(i int64, seq *strictjson.Value) error {
	// A JSON number literal that parses as an integer has no other
	// spelling of the same value but -0; ParseInt does not allocate.
	if seq != nil && seq.Kind == strictjson.Number {
		if n, err := strconv.ParseInt(seq.Str, 10, 64); err == nil && n == i {
			return nil
		}
	}
	got := "missing"
	if seq != nil {
		got = seq.Str
		if seq.Kind != strictjson.Number {
			got = "not a number"
		}
	}
	return format.Refuse(format.StepOutOfOrder, fmt.Sprintf("steps[%d].seq is %s", i, got))
}
