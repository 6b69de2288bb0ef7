package jsvalue

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
)

// allocRatio parses data and returns the bytes allocated per input byte
// (runtime.MemStats.TotalAlloc: deterministic, unlike a timing).
func allocRatio(t *testing.T, data []byte) (float64, error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, _, err := Parse(data)
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data)), err
}

// TestValueBudget: a cassette made of the smallest values ([1,1,1,…],
// {"a":1,…}) was held at about 120 times its size. Past one value per
// BytesPerValue bytes of input the reader stops with ErrTooManyValues, so
// what it allocates stays within 16 times the input.
func TestValueBudget(t *testing.T) {
	const n = 1 << 20
	for name, data := range map[string][]byte{
		"array":  append(append([]byte("["), bytes.Repeat([]byte("1,"), n)...), '1', ']'),
		"nested": append(append([]byte("["), bytes.Repeat([]byte("[],"), n)...), '1', ']'),
		"object": append(append([]byte(`{"a":[`), bytes.Repeat([]byte(`{"a":1},`), n/4)...), []byte("1]}")...),
	} {
		ratio, err := allocRatio(t, data)
		t.Logf("%s: %d bytes, %.1f bytes allocated per input byte, err %v", name, len(data), ratio, err)
		if ratio > 16 {
			t.Errorf("%s: allocated %.1fx the input, want <= 16x", name, ratio)
		}
		if name != "object" && !errors.Is(err, ErrTooManyValues) {
			t.Errorf("%s: err %v, want ErrTooManyValues", name, err)
		}
	}
	// At the budget's edge (one value per BytesPerValue bytes) the text is
	// read, still within 16 times its size.
	pad := append([]byte("1,"), bytes.Repeat([]byte(" "), BytesPerValue-2)...)
	edge := append(append([]byte("["), bytes.Repeat(pad, n/8)...), '1', ']')
	ratio, err := allocRatio(t, edge)
	t.Logf("edge: %d bytes, %.1f bytes allocated per input byte, err %v", len(edge), ratio, err)
	if err != nil || ratio > 16 {
		t.Errorf("edge: %.1fx, err %v; want read within 16x", ratio, err)
	}
	// Ordinary JSON is far below the budget.
	if _, _, err := Parse([]byte(`{"manifest":{"v":1},"events":[{"seq":1,"t":"x"}]}`)); err != nil {
		t.Fatal(err)
	}
}
