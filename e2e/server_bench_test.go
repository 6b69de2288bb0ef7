package e2e

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
)

// benchServer starts a server for a benchmark.
func benchServer(b *testing.B) *liveServer {
	dir := b.TempDir()
	return startServer(b, freePort(b), filepath.Join(dir, "data"), newServerKey(b, dir), nil)
}

// BenchmarkServerHook: one event, whole request, three ways side by side:
// an HTTP hook's POST to logbook-server (a kept-alive connection, as a
// harness's HTTP client has), a record-step process recording locally (the
// command hook), and a record-step --server process forwarding it. The
// same 1 KB payload (benchPayload) each time.
func BenchmarkServerHook(b *testing.B) {
	b.Run("http", func(b *testing.B) {
		s := benchServer(b)
		c := &http.Client{}
		b.SetBytes(int64(len(benchPayload)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if code, err := postEvent(c, s.url, benchPayload); err != nil || code != 200 {
				b.Fatal(code, err)
			}
		}
	})
	b.Run("record-step", func(b *testing.B) {
		dir := b.TempDir()
		env := append(os.Environ(), "LOGBOOK_DIR="+dir)
		prefill(b, dir, 10)
		b.SetBytes(int64(len(benchPayload)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(filepath.Join(bin, "record-step"))
			cmd.Env, cmd.Stdin = env, bytes.NewReader(benchPayload)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatal(err, string(out))
			}
		}
	})
	b.Run("record-step--server", func(b *testing.B) {
		s := benchServer(b)
		b.SetBytes(int64(len(benchPayload)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(filepath.Join(bin, "record-step"), "--server", s.url)
			cmd.Stdin = bytes.NewReader(benchPayload)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatal(err, string(out))
			}
		}
	})
	// With the server's key pinned, as install --server writes the hook:
	// a nonce out, the server's signature over it checked on the way back.
	b.Run("record-step--server-key", func(b *testing.B) {
		s := benchServer(b)
		pin := pinnedKey(b, s)
		b.SetBytes(int64(len(benchPayload)))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			cmd := exec.Command(filepath.Join(bin, "record-step"), "--server", s.url, "--server-key", pin)
			cmd.Stdin = bytes.NewReader(benchPayload)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatal(err, string(out))
			}
		}
	})
}

// pinnedKey is the server's public key as record-step --server-key takes it.
func pinnedKey(b testing.TB, s *liveServer) string {
	text, err := os.ReadFile(s.pub)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := keys.ParsePublicKeyPEM(text)
	if err != nil {
		b.Fatal(err)
	}
	return hex.EncodeToString(pub)
}

// BenchmarkServerThroughput: 16 clients, each its own session on its own
// kept-alive connection, send as fast as the server answers; events/s is
// the whole machine's rate (clients and server share its 2 cores).
func BenchmarkServerThroughput(b *testing.B) {
	s := benchServer(b)
	const clients = 16
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		n := b.N / clients
		if c < b.N%clients {
			n++
		}
		wg.Go(func() {
			cl := &http.Client{Transport: tr}
			for i := 0; i < n; i++ {
				if code, err := postEvent(cl, s.url, toolEvent(fmt.Sprintf("tp-%02d", c), i)); err != nil || code != 200 {
					b.Error(code, err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkServerLatency: 16 clients pace 1,000 events/s between them for
// two seconds; the latency of each whole request is measured and the
// 50th and 99th percentiles reported.
func BenchmarkServerLatency(b *testing.B) {
	s := benchServer(b)
	pacedLatency(b, s.url, func(it, c, i int) []byte { return toolEvent(fmt.Sprintf("lat-%d-%02d", it, c), i) })
}

// pacedLatency has 16 clients pace 1,000 events/s between them at url for
// two seconds per iteration, event(iteration, client, i) making each, and
// reports the 50th and 99th percentiles of a whole request. It returns
// the number of events sent and, for each, the server's own time and its
// wait on the group commit, from the answer's Server-Timing header (none
// when the server sends none).
//
// Each client is one goroutine on one kept-alive connection of its own,
// writing the request's bytes and reading the answer with
// http.ReadResponse: net/http's Client would add two goroutines per
// connection and a hand-off between them for every request, CPU taken
// from the server it measures on a machine of two cores. The requests are
// built before the clock starts.
func pacedLatency(b *testing.B, url string, event func(it, c, i int) []byte) (n int, took, syncWaits []time.Duration) {
	const clients, rate, seconds = 16, 1000, 2
	const per = rate / clients
	host := strings.TrimPrefix(url, "http://")
	var all []time.Duration
	for it := 0; it < b.N; it++ {
		reqs := make([][][]byte, clients)
		for c := range reqs {
			for i := 0; i < per*seconds; i++ {
				body := event(it, c, i)
				head := fmt.Sprintf("POST /v1/hooks/claude-code HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", host, len(body))
				reqs[c] = append(reqs[c], append([]byte(head), body...))
			}
		}
		lat := make([][]time.Duration, clients)
		hooks := make([][]time.Duration, clients)
		waits := make([][]time.Duration, clients)
		var wg sync.WaitGroup
		begin := time.Now()
		for c := 0; c < clients; c++ {
			wg.Go(func() {
				conn, err := net.Dial("tcp", host)
				if err != nil {
					b.Error(err)
					return
				}
				defer conn.Close()
				rd := bufio.NewReader(conn)
				interval := time.Second / time.Duration(per)
				// Each client starts at its own offset within the interval.
				next := begin.Add(time.Duration(c) * interval / clients)
				for _, req := range reqs[c] {
					time.Sleep(time.Until(next))
					t0 := time.Now()
					if _, err := conn.Write(req); err != nil {
						b.Error(err)
						return
					}
					resp, err := http.ReadResponse(rd, nil)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					d := time.Since(t0)
					if resp.StatusCode != 200 {
						b.Error(resp.StatusCode)
						return
					}
					lat[c] = append(lat[c], d)
					if hk, sw, ok := parseServerTiming(resp.Header.Get("Server-Timing")); ok {
						hooks[c], waits[c] = append(hooks[c], hk), append(waits[c], sw)
					}
					next = next.Add(interval)
				}
			})
		}
		wg.Wait()
		for c := range lat {
			all = append(all, lat[c]...)
			took, syncWaits = append(took, hooks[c]...), append(syncWaits, waits[c]...)
		}
	}
	reportPercentiles(b, all)
	return len(all), took, syncWaits
}

// parseServerTiming reads logbook-server's Server-Timing header,
// "hook;dur=MS, sync;dur=MS".
func parseServerTiming(h string) (hook, sync time.Duration, ok bool) {
	var a, c float64
	if _, err := fmt.Sscanf(h, "hook;dur=%g, sync;dur=%g", &a, &c); err != nil {
		return 0, 0, false
	}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	return ms(a), ms(c), true
}

// reportPercentiles reports the 50th and 99th percentiles of all, in ms,
// and how many there are.
func reportPercentiles(b *testing.B, all []time.Duration) {
	if len(all) == 0 {
		b.Fatal("nothing measured")
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(len(all)), "events")
}

// BenchmarkStartupNetHTTP is why record-step --server forwards over a
// socket of its own (internal/hookpost) instead of net/http: it times,
// interleaved, an empty Go program, one linking net/http (as go build
// makes it: dynamically linked, with cgo's resolver), the same built with
// CGO_ENABLED=0, and record-step's forwarding to a server. Medians.
func BenchmarkStartupNetHTTP(b *testing.B) {
	work := b.TempDir()
	build := func(name, pkg string, env ...string) string {
		out := filepath.Join(work, name)
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Env = append(os.Environ(), env...)
		if o, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, o)
		}
		return out
	}
	s := benchServer(b)
	arms := []struct {
		name  string
		argv  []string
		stdin []byte
	}{
		{"empty", []string{build("empty", "./testdata/startfloor/empty")}, nil},
		{"nethttp", []string{build("nethttp", "./testdata/startfloor/nethttp")}, nil},
		{"nethttp-static", []string{build("nethttp-static", "./testdata/startfloor/nethttp", "CGO_ENABLED=0")}, nil},
		{"record-step--server", []string{filepath.Join(bin, "record-step"), "--server", s.url}, benchPayload},
	}
	times := make([][]time.Duration, len(arms))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, a := range arms {
			cmd := exec.Command(a.argv[0], a.argv[1:]...)
			cmd.Stdin = bytes.NewReader(a.stdin)
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatalf("%s: %v %s", a.name, err, out)
			}
			times[j] = append(times[j], time.Since(t0))
		}
	}
	b.StopTimer()
	for j, a := range arms {
		b.ReportMetric(median(times[j]), a.name+"-ms")
	}
}
