// Package membudget holds a command that reads one large input to a
// memory budget proportional to it.
//
// logbook-seal and logbook-verify collect rarely (GOGC 400) because a
// record's buffers are most of the heap and live to the end: marking them
// again and again costs time. Left at that, the heap of a 100,000-step
// record grew to 5× what was live before the first collection came due:
// 258 MiB resident to verify a 49 MiB file, 463 MiB to seal it (issue 22).
// A soft limit a little above what verifying needs (the file plus one
// canonical copy of it, spec §6: Ed25519 signs the whole envelope) keeps
// the rare collections and caps the peak; BenchmarkSealVerify in e2e shows
// both. $GOMEMLIMIT, when set, wins.
package membudget

import (
	"os"
	"runtime/debug"
)

// Large is the input size from which a budget is set: below it the runtime's
// own few MiB dominate and a limit would only add collections.
const Large = 8 << 20

// runtimeShare is the runtime's own ~4 MiB and room to spare for small
// allocations (parse scratch, the hashing goroutine's batches).
const runtimeShare = 24 << 20

// ForInput sets a soft memory limit of copies×size plus the runtime's
// share when size is at least Large and $GOMEMLIMIT is not set. copies is
// how many input-sized buffers the command keeps live at its peak.
func ForInput(size int64, copies int64) {
	if size < Large || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(copies*size + runtimeShare)
}
