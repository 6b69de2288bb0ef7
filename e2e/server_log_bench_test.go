package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkServerLog puts the server's speed figures side by side in one
// run (docs/performance.md): the command hook's record-step process as
// the floor, then logbook-server without the transparency log (--log
// none) and with it (posix, the default; posix-20ms: the default batch
// age before it was raised to 100 ms), each under three loads:
//
//   - hook1: one client sends b.N events one after the other, as a
//     harness's HTTP hook does: its p50 against record-step's is what
//     one event costs each way;
//   - load16: 16 clients, each its own session on a kept-alive
//     connection, send 10×b.N events as fast as the server answers:
//     events/s is the whole machine's rate (clients and server share its
//     cores). The log sequences and integrates behind the answers, so a
//     short burst would hide its cost: 10×b.N events keep its batches
//     and fsyncs in a steady state for seconds;
//   - paced1000: the same 16 clients pace 1,000 events/s between them.
//
// Every arm reports events/s and the p50 and p99 latency of a whole
// request (or process). -benchtime 3000x: 3,000 record-step processes,
// 30,000 events per load16 arm, 3 s per paced1000 arm.
func BenchmarkServerLog(b *testing.B) {
	b.Run("record-step", func(b *testing.B) {
		dir := b.TempDir()
		env := append(os.Environ(), "LOGBOOK_DIR="+dir)
		prefill(b, dir, 10)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		start := time.Now()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(filepath.Join(bin, "record-step"))
			cmd.Env, cmd.Stdin = env, bytes.NewReader(benchPayload)
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatal(err, string(out))
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat, time.Since(start))
	})
	for _, mode := range []string{"none", "posix", "posix-20ms"} {
		for _, load := range []struct {
			name    string
			clients int
			rate    int // events/s between the clients; 0: as fast as answered
		}{{"hook1", 1, 0}, {"load16", 16, 0}, {"paced1000", 16, 1000}} {
			b.Run(mode+"/"+load.name, func(b *testing.B) {
				dir := b.TempDir()
				args := []string{"--log", mode}
				if d, ok := strings.CutPrefix(mode, "posix-"); ok {
					args = []string{"--log", "posix", "--log-batch-age", d}
				}
				s := startServer(b, freePort(b), filepath.Join(dir, "data"), newServerKey(b, dir), nil, args...)
				n := b.N
				if load.clients > 1 && load.rate == 0 {
					n *= 10
				}
				b.ResetTimer()
				lat, took := serverLoad(b, s.url, load.clients, load.rate, n)
				reportLatency(b, lat, took)
			})
		}
	}
}

// serverLoad sends n tool events from clients clients (one session and
// one kept-alive connection each), paced to rate events/s between them
// when rate > 0, and returns each request's latency and the time taken.
func serverLoad(b *testing.B, url string, clients, rate, n int) ([]time.Duration, time.Duration) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	all := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	begin := time.Now()
	for c := 0; c < clients; c++ {
		per := n / clients
		if c < n%clients {
			per++
		}
		wg.Go(func() {
			cl := &http.Client{Transport: tr}
			var interval time.Duration
			var next time.Time
			if rate > 0 {
				interval = time.Second * time.Duration(clients) / time.Duration(rate)
				next = begin.Add(time.Duration(c) * interval / time.Duration(clients))
			}
			mine := make([]time.Duration, 0, per)
			for i := 0; i < per; i++ {
				if rate > 0 {
					time.Sleep(time.Until(next))
					next = next.Add(interval)
				}
				t0 := time.Now()
				if code, err := postEvent(cl, url, toolEvent(fmt.Sprintf("lg-%02d", c), i)); err != nil || code != 200 {
					b.Error(code, err)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all, time.Since(begin)
}

// reportLatency reports events/s and the 50th and 99th percentiles.
func reportLatency(b *testing.B, lat []time.Duration, took time.Duration) {
	b.StopTimer()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(lat))/took.Seconds(), "events/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
