package e2e

import (
	"fmt"
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
)

// BenchmarkServerUse is the load generator of issue 24, every arm side by
// side in one run (docs/performance.md): 16 clients, each recording its
// own 200-event sessions (SessionStart, 99 tool calls, SessionEnd) on a
// kept-alive connection as fast as the server answers, against a
// logbook-server process on loopback. One iteration is one session per
// client (3,200 events). Arms:
//
//   - fresh: new session ids;
//   - resumed: each session was recorded and sealed before the timer
//     starts (200 events and SessionEnd), and is resumed under the same
//     id (`claude --resume`): its SessionStart reopens it;
//   - log=none / log=posix: without or with the transparency log;
//   - fsync=off / fsync=group: answered once written, or once fsynced
//     (group commit, the default);
//   - witnesses=3up / witnesses=2down: the log cosigned by 3 witnesses
//     (quorum: any 1 of them), or with 2 of them down (listening, never
//     answering: each of their requests waits for the timeout).
//
// Each arm reports events/s, the p50 and p99 of a whole request, and
// end-ms, the median time of a SessionEnd's answer (the seal).
//
//	go test ./e2e -run XXX -bench ServerUse -benchtime 2x -count 6 > use.txt; benchstat use.txt
func BenchmarkServerUse(b *testing.B) {
	type arm struct {
		name      string
		args      []string
		resumed   bool
		witnesses int // 0: none; 3: 3 up; -2: 3 with 2 down
	}
	arms := []arm{
		{"fresh/log=none/fsync=off", []string{"--log", "none", "--fsync", "off"}, false, 0},
		{"resumed/log=none/fsync=off", []string{"--log", "none", "--fsync", "off"}, true, 0},
		{"fresh/log=none/fsync=group", []string{"--log", "none"}, false, 0},
		{"resumed/log=none/fsync=group", []string{"--log", "none"}, true, 0},
		{"fresh/log=posix/fsync=off", []string{"--fsync", "off"}, false, 0},
		{"fresh/log=posix/fsync=group", nil, false, 0},
		{"resumed/log=posix/fsync=group", nil, true, 0},
		{"fresh/log=posix/fsync=group/witnesses=3up", nil, false, 3},
		{"fresh/log=posix/fsync=group/witnesses=2down", nil, false, -2},
		{"fresh/log=posix/fsync=group/witnesses=2refused", nil, false, -3},
	}
	for _, a := range arms {
		if f := os.Getenv("LOGBOOK_BENCH_ARMS"); f != "" && !strings.Contains(a.name, f) {
			continue
		}
		b.Run(a.name, func(b *testing.B) {
			dir := b.TempDir()
			key := newServerKey(b, dir)
			args := a.args
			if a.witnesses != 0 {
				args = append(args, "--log-witnesses", witnesses(b, dir, key, -a.witnesses))
			}
			s := startServer(b, freePort(b), filepath.Join(dir, "data"), key, nil, args...)
			const clients, events = 16, 200
			tr := &http.Transport{MaxIdleConnsPerHost: clients}
			defer tr.CloseIdleConnections()
			if a.resumed {
				useSessions(b, s.url, tr, clients, events, b.N, "use", nil, nil)
			}
			var lat, ends []time.Duration
			b.ResetTimer()
			start := time.Now()
			useSessions(b, s.url, tr, clients, events, b.N, "use", &lat, &ends)
			took := time.Since(start)
			reportLatency(b, lat, took)
			slices.Sort(ends)
			if len(ends) > 0 {
				b.ReportMetric(float64(ends[len(ends)/2].Microseconds())/1000, "end-ms")
			}
		})
	}
}

// BenchmarkServerResumeMixed runs fresh and resumed sessions at once in
// one server, so that both meet the same load: 8 of the 16 clients resume
// sessions recorded and sealed before the timer starts (resumed 1 or 15
// times already: the round timed is their 2nd or 16th), 8 record new
// ones. It reports each half's events/s and p50, and resumed/fresh, the
// ratio of their events/s.
//
//	go test ./e2e -run XXX -bench ServerResumeMixed -benchtime 2x -count 6
func BenchmarkServerResumeMixed(b *testing.B) {
	for _, arm := range []struct {
		fsync   string
		resumes int
	}{{"off", 1}, {"group", 1}, {"off", 15}, {"group", 15}} {
		fsync := arm.fsync
		b.Run(fmt.Sprintf("fsync=%s/resumes=%d", fsync, arm.resumes), func(b *testing.B) {
			dir := b.TempDir()
			s := startServer(b, freePort(b), filepath.Join(dir, "data"), newServerKey(b, dir), nil, "--log", "none", "--fsync", fsync)
			const half, events = 8, 200
			tr := &http.Transport{MaxIdleConnsPerHost: 2 * half}
			defer tr.CloseIdleConnections()
			for range arm.resumes {
				useSessions(b, s.url, tr, half, events, b.N, "old", nil, nil)
			}
			var lats, ends [2][]time.Duration
			var took [2]time.Duration
			b.ResetTimer()
			var wg sync.WaitGroup
			for i, prefix := range []string{"new", "old"} {
				wg.Go(func() {
					t0 := time.Now()
					useSessions(b, s.url, tr, half, events, b.N, prefix, &lats[i], &ends[i])
					took[i] = time.Since(t0)
				})
			}
			wg.Wait()
			b.StopTimer()
			var rate [2]float64
			for i, name := range []string{"fresh", "resumed"} {
				lat := lats[i]
				slices.Sort(lat)
				if len(lat) == 0 {
					continue
				}
				rate[i] = float64(len(lat)) / took[i].Seconds()
				b.ReportMetric(rate[i], name+"-events/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, name+"-p50-ms")
			}
			if rate[0] > 0 {
				b.ReportMetric(rate[1]/rate[0], "resumed/fresh")
			}
		})
	}
}

// useSessions runs rounds sessions per client (ids PREFIX-C-R: the same
// ids each call, so a second call resumes them), collecting each request's
// latency and each SessionEnd's when lat is not nil.
func useSessions(b *testing.B, url string, tr *http.Transport, clients, events, rounds int, prefix string, lat, ends *[]time.Duration) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Go(func() {
			cl := &http.Client{Transport: tr}
			mine := make([]time.Duration, 0, rounds*events)
			var myEnds []time.Duration
			for r := 0; r < rounds; r++ {
				id := fmt.Sprintf("%s-%02d-%d", prefix, c, r)
				for i := 0; i < events; i++ {
					var body []byte
					switch i {
					case 0:
						body = []byte(`{"session_id":"` + id + `","hook_event_name":"SessionStart","source":"resume","cwd":"/work/project"}`)
					case events - 1:
						body = []byte(`{"session_id":"` + id + `","hook_event_name":"SessionEnd","reason":"exit"}`)
					default:
						body = toolEvent(id, i-1)
					}
					t0 := time.Now()
					if code, err := postEvent(cl, url, body); err != nil || code != 200 {
						b.Error(id, i, code, err)
						return
					}
					d := time.Since(t0)
					mine = append(mine, d)
					if i == events-1 {
						myEnds = append(myEnds, d)
					}
				}
			}
			if lat != nil {
				mu.Lock()
				*lat = append(*lat, mine...)
				*ends = append(*ends, myEnds...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// witnesses starts 3 logbook-witness processes for the server key's log
// and returns the server's policy file: any 1 of the 3 cosigns. down 2:
// 2 of them are replaced by listeners that accept and never answer; 3:
// by closed ports (connection refused).
func witnesses(b *testing.B, dir, key string, down int) string {
	out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--verifier-key", "--key", key, "--name", "e2e.example/log").Output()
	if err != nil {
		b.Fatal(err)
	}
	logKey := strings.TrimSpace(string(out))
	var policy strings.Builder
	for i := 1; i <= 3; i++ {
		wkey := filepath.Join(dir, fmt.Sprintf("w%d.key", i))
		if out, err := exec.Command(filepath.Join(bin, "logbook-witness"), "--new-key", wkey, "--name", fmt.Sprintf("witness%d.e2e", i)).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		vkey, _ := os.ReadFile(wkey + ".vkey")
		addr := freePort(b)
		if down == 3 && i > 1 {
			// nothing listens on addr: refused
		} else if down == 2 && i > 1 {
			l, err := net.Listen("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { l.Close() })
			go func() { // accept, never answer
				var held []net.Conn
				for {
					c, err := l.Accept()
					if err != nil {
						for _, c := range held {
							c.Close()
						}
						return
					}
					held = append(held, c)
				}
			}()
		} else {
			startWitness(b, addr, filepath.Join(dir, fmt.Sprintf("w%d.state", i)), wkey, logKey)
		}
		fmt.Fprintf(&policy, "witness w%d %s http://%s\n", i, strings.TrimSpace(string(vkey)), addr)
	}
	policy.WriteString("group g 1 w1 w2 w3\nquorum g\n")
	p := filepath.Join(dir, "witnesses.policy")
	if err := os.WriteFile(p, []byte(policy.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}
