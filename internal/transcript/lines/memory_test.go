package lines

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// readRatio reads data and returns the bytes allocated per input byte
// (runtime.MemStats.TotalAlloc: deterministic, unlike a timing).
func readRatio(data []byte) (float64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data)), err
}

// TestLineBudget: a transcript of "{}" lines took about 370 bytes of
// memory per line, over 100 times its size. Past one line per BytesPerLine
// bytes read, Read stops with ErrTooManyLines, so what it allocates stays
// within 16 times the input.
func TestLineBudget(t *testing.T) {
	tiny := bytes.Repeat([]byte("{}\n"), 1<<20)
	ratio, err := readRatio(tiny)
	t.Logf("{} lines: %d bytes, %.1f bytes allocated per input byte, err %v", len(tiny), ratio, err)
	if !errors.Is(err, ErrTooManyLines) {
		t.Errorf("err %v, want ErrTooManyLines", err)
	}
	if ratio > 16 {
		t.Errorf("allocated %.1fx the input, want <= 16x", ratio)
	}
	// At the budget's edge (one line per BytesPerLine bytes) it is read,
	// within 16 times its size.
	line := []byte("{}" + strings.Repeat(" ", BytesPerLine-3) + "\n")
	edge := bytes.Repeat(line, 1<<16)
	ratio, err = readRatio(edge)
	t.Logf("edge: %d bytes, %.1f bytes allocated per input byte, err %v", len(edge), ratio, err)
	if err != nil || ratio > 16 {
		t.Errorf("edge: %.1fx, err %v; want read within 16x", ratio, err)
	}
}

// TestMaxBytes: a transcript that never ends (/dev/zero's like) is read no
// further than MaxBytes.
func TestMaxBytes(t *testing.T) {
	old := MaxBytes
	MaxBytes = 1 << 16
	t.Cleanup(func() { MaxBytes = old })
	_, err := Read(endless{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
