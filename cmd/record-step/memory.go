package main

import "runtime/debug"

// Memory for one event. The Go runtime alone maps about 4 MiB before the
// payload is read: a soft memory limit near that (it was 2×payload +
// 4 MiB) made a 0.5 KB event run a dozen or more collections, tripling the
// cost of every hook. Small events need no limit at all: the runtime's
// first collection is due at a 4 MiB heap, which they never reach, so they
// run none (TestSmallEventGC holds that).
//
// A large payload is parsed and digested at the rate it is read, making
// garbage as fast: the heap would grow to twice whatever is live at each
// cycle. There the collector is held close behind instead, by a lower
// GOGC and a soft limit of twice the payload plus the runtime's own
// share with room to spare. Measured on 10 MB payloads (a string body, and
// five million numbers), the peak stays at 24–29 MiB resident, under 3×
// the payload (BenchmarkRecordStepPayload in e2e).
const (
	largePayload = 1 << 20 // from here on, memory is budgeted
	runtimeShare = 8 << 20 // the runtime's own ~4 MiB, and as much again to spare
	largeGOGC    = 25
)

func limitMemory(payload int) {
	if payload < largePayload {
		return
	}
	debug.SetGCPercent(largeGOGC)
	debug.SetMemoryLimit(2*int64(payload) + runtimeShare)
}
