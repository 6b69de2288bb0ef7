package cassettecheck_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	"github.com/logbook-project/logbook/runback"
)

var (
	bigOnce     sync.Once
	bigCassette []byte
)

// big is a sealed 100,000-event cassette: a run of tool calls, model calls
// and clock reads, each event a few hundred bytes.
func big(b *testing.B) []byte { return bigFor(b) }

func bigFor(b testing.TB) []byte {
	bigOnce.Do(func() {
		ctx := context.Background()
		rec := runback.NewRecorder(runback.Config{RunID: "run_big", Name: "bench", Clock: clock(), Rand: counter()})
		must(b, rec.Start("benchmark"))
		for i := 0; len(bigCassette) == 0 && i < 99_998; i++ {
			switch i % 3 {
			case 0:
				_, _ = rec.Tool(ctx, runback.ToolCall{Name: "read_file", CallID: fmt.Sprint("t", i), Input: map[string]any{"path": fmt.Sprintf("src/pkg%d/file%d.go", i%50, i)}},
					func(context.Context) (any, error) {
						return map[string]any{"lines": 120 + i%40, "sha": fmt.Sprintf("%064x", i), "preview": "package main\n\nfunc main() {}\n"}, nil
					})
			case 1:
				_, _ = rec.Model(ctx, runback.ModelCall{Provider: "fake", Model: "scripted-1", Request: map[string]any{"messages": []any{map[string]any{"role": "user", "content": fmt.Sprint("step ", i)}}}},
					func(context.Context) (any, error) {
						return map[string]any{"text": "next step", "finish_reason": "tool-call"}, nil
					})
			default:
				rec.Now()
			}
		}
		must(b, rec.End("done", nil))
		var err error
		bigCassette, err = rec.Seal(runback.Ed25519Signer(testKey("fixture")))
		must(b, err)
	})
	return bigCassette
}

// BenchmarkVerify100k verifies a 100,000-event cassette: reported as MB/s
// of cassette, with the heap in use after the parse (heap-MB) as memory.
func BenchmarkVerify100k(b *testing.B) {
	data := big(b)
	opt := cassettecheck.Options{Pinned: nil}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var peak uint64
	for i := 0; i < b.N; i++ {
		res, err := cassettecheck.Verify(data, opt)
		if err != nil || !res.Integrity || res.Meta.EventCount != 100_000 {
			b.Fatalf("%v integrity %v events %d", err, res.Integrity, res.Meta.EventCount)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		runtime.KeepAlive(res)
	}
	// CPU time, not wall time: the machine is shared, and MB/s per CPU
	// second is the figure that does not depend on neighbours.
	cpu := (cpuTime() - cpu0).Seconds() / float64(b.N)
	b.ReportMetric(float64(len(data))/1e6/cpu, "MB/cpu-s")
	b.ReportMetric(float64(len(data))/1e6, "cassette-MB")
	b.ReportMetric(float64(peak)/1e6, "heap-MB")
}

// BenchmarkFloorSHA256 is the floor: SHA-256 over the same bytes once.
func BenchmarkFloorSHA256(b *testing.B) {
	data := big(b)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		_ = sha256Sum(data)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
