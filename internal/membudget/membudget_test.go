package membudget

import (
	"math"
	"runtime/debug"
	"testing"
)

// Not parallel: the memory limit is process-wide.
func TestForInput(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(math.MaxInt64)
	debug.SetMemoryLimit(math.MaxInt64)
	ForInput(Large-1, 2)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("a small input set a limit: %d", got)
	}
	ForInput(100<<20, 2)
	if got, want := debug.SetMemoryLimit(-1), int64(200<<20+runtimeShare); got != want {
		t.Fatalf("limit %d, want %d", got, want)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	t.Setenv("GOMEMLIMIT", "1GiB")
	ForInput(100<<20, 2)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("$GOMEMLIMIT did not win: %d", got)
	}
}
