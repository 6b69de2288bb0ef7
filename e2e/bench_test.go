package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// benchPayload is a typical PreToolUse event (about 1 KB).
var benchPayload = []byte(`{"session_id":"bench","transcript_path":"/home/dev/.claude/projects/-home-dev-p/bench.jsonl","cwd":"/home/dev/p",` +
	`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV",` +
	`"tool_input":{"file_path":"/home/dev/p/internal/server/handler.go","old_string":"` + string(bytes.Repeat([]byte("x"), 400)) +
	`","new_string":"` + string(bytes.Repeat([]byte("y"), 400)) + `"}}`)

// prefill writes n steps of the benchmark session into dir, in one append.
func prefill(tb testing.TB, dir string, n int) {
	ev, err := hookevent.Parse(benchPayload)
	if err != nil {
		tb.Fatal(err)
	}
	j, err := journalfile.Open(dir, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	defer j.Close()
	steps := make([]chain.Step, n)
	for i := range steps {
		steps[i] = ev.Step
		steps[i].At = fmt.Sprintf("2026-05-01T00:00:00.%09dZ", i)
	}
	if _, err := j.Append(journalfile.Header{Session: "bench", Cwd: "/home/dev/p", Harness: hookevent.Harness}, steps); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkRecordStep: one whole record-step process per event, at three
// session lengths. The file is cut back to its starting length between
// runs, so each event lands at the stated length. At steps=0 each event
// starts a session: it writes the header, and hashes record-step's own
// executable for session.recorder (once per session, never again).
func BenchmarkRecordStep(b *testing.B) {
	for _, n := range []int{0, 10, 10000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			var size int64
			path := journalfile.Path(dir, "bench")
			if n > 0 {
				prefill(b, dir, n)
				st, _ := os.Stat(path)
				size = st.Size()
			}
			env := append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW=2026-05-02T00:00:00Z")
			b.SetBytes(int64(len(benchPayload)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(filepath.Join(bin, "record-step"))
				cmd.Env = env
				cmd.Stdin = bytes.NewReader(benchPayload)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("%v %s", err, out)
				}
				b.StopTimer()
				os.Truncate(path, size)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkCatAppend is the floor to compare with: a shell appending the
// same payload to a file, with no parsing, hashing or locking.
func BenchmarkCatAppend(b *testing.B) {
	file := filepath.Join(b.TempDir(), "events")
	b.SetBytes(int64(len(benchPayload)))
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("sh", "-c", "cat >> "+file)
		cmd.Stdin = bytes.NewReader(benchPayload)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// childRSS runs prog with args under GNU time and returns its peak
// resident memory in MiB. ProcessState.SysUsage is not used: on Linux a
// child's ru_maxrss can include the peak it inherited from this (large)
// test process at fork, so small children read as large as the test.
func childRSS(prog string, args ...string) (float64, error) {
	var errb bytes.Buffer
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "maxrss=%M", prog}, args...)...)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, errb.String())
	}
	_, kb, ok := strings.Cut(strings.TrimSpace(errb.String()), "maxrss=")
	n, err := strconv.Atoi(kb)
	if !ok || err != nil {
		return 0, fmt.Errorf("no peak in %q", errb.String())
	}
	return float64(n) / 1024, nil
}

// BenchmarkSealVerify seals and verifies sessions of 10,000 and 100,000
// steps with the commands, reporting throughput and peak resident memory:
// both should grow linearly with the number of steps.
func BenchmarkSealVerify(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) { sealVerify(b, n) })
	}
}

func sealVerify(b *testing.B, n int) {
	dir := b.TempDir()
	prefill(b, dir, n)
	key := filepath.Join(dir, "k")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	rec := filepath.Join(dir, "r.json")
	b.Run("seal", func(b *testing.B) {
		var rss float64
		for i := 0; i < b.N; i++ {
			// A first seal: sealing over an existing record also reads
			// that one, to keep it or to find it unchanged.
			os.Remove(rec)
			r, err := childRSS(filepath.Join(bin, "logbook-seal"), "--dir", dir, "--session", "bench", "--key", key, "--out", rec)
			if err != nil {
				b.Fatal(err)
			}
			rss = max(rss, r)
		}
		st, _ := os.Stat(rec)
		b.SetBytes(st.Size())
		b.ReportMetric(rss, "peak-RSS-MiB")
		// Issue 22's targets: peak RSS at most 1.5x the file (the journal
		// for seal, whose record is about its size).
		jst, _ := os.Stat(filepath.Join(dir, "bench.steps.jsonl"))
		b.ReportMetric(rss*(1<<20)/float64(max(st.Size(), jst.Size())), "RSS/file")
	})
	// verify side by side with sha256sum of the same file (the floor of
	// reading and hashing it once; target: verify at most 3x its time).
	b.Run("verify", func(b *testing.B) {
		st, _ := os.Stat(rec)
		b.SetBytes(st.Size())
		sum, err := exec.LookPath("sha256sum")
		if err != nil {
			b.Skip("no sha256sum")
		}
		var rss float64
		var tv, ts []time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			if out, err := exec.Command(sum, rec).CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			ts = append(ts, time.Since(t0))
			t0 = time.Now()
			if out, err := exec.Command(filepath.Join(bin, "logbook-verify"), rec).CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
			tv = append(tv, time.Since(t0))
			// Peak memory from a separate run under GNU time, so the
			// timed run is the command alone.
			r, err := childRSS(filepath.Join(bin, "logbook-verify"), rec)
			if err != nil {
				b.Fatal(err)
			}
			rss = max(rss, r)
		}
		b.ReportMetric(rss, "peak-RSS-MiB")
		b.ReportMetric(rss*(1<<20)/float64(st.Size()), "RSS/file")
		b.ReportMetric(median(tv), "verify-ms")
		b.ReportMetric(median(ts), "sha256sum-ms")
		b.ReportMetric(median(tv)/median(ts), "verify/sha256sum")
	})
}

// BenchmarkRecordStepPayload: one record-step process on payloads of 1 KB
// and 10 MB (a 10 MB string body, and five million numbers), reporting peak
// resident memory and its ratio to the payload (target: at most 3x).
func BenchmarkRecordStepPayload(b *testing.B) {
	mk := func(body string) []byte {
		return []byte(`{"session_id":"mem","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"make"},"tool_response":` + body + `}`)
	}
	cases := []struct {
		name    string
		payload []byte
	}{
		{"1KB", mk(`{"stdout":"` + strings.Repeat("x", 900) + `"}`)},
		{"10MB-string", mk(`{"stdout":"` + strings.Repeat("x", 10<<20) + `"}`)},
		{"10MB-numbers", mk(`[` + strings.Repeat("1,", 5<<20) + `1]`)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			b.SetBytes(int64(len(c.payload)))
			in := filepath.Join(dir, "payload")
			os.WriteFile(in, c.payload, 0o600)
			var peak float64
			for i := 0; i < b.N; i++ {
				rss, err := runForRSS(filepath.Join(bin, "record-step"), in, "LOGBOOK_DIR="+dir, "LOGBOOK_NOW=2026-05-02T00:00:00Z")
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, rss)
			}
			b.ReportMetric(peak, "peak-MiB")
			b.ReportMetric(peak*(1<<20)/float64(len(c.payload)), "peak/payload")
		})
	}
}

// BenchmarkPageVerify: the in-browser checker (web/) verifying a sealed
// record of n steps in headless Chromium. The record is handed to the page
// once; each iteration is one window.logbookVerify call, timed in the page
// (page-ms) and from here (ns/op, which adds one DevTools round trip).
// cpu-ms is the CPU time all of Chromium's processes used per call: on a
// machine shared with other work it moves less than the clock does.
func BenchmarkPageVerify(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			prefill(b, dir, n)
			key := filepath.Join(dir, "k")
			rec := filepath.Join(dir, "r.json")
			for _, args := range [][]string{{"--new-key", key}, {"--dir", dir, "--session", "bench", "--key", key, "--out", rec}} {
				if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), args...).CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
			data, err := os.ReadFile(rec)
			if err != nil {
				b.Fatal(err)
			}
			br := newBrowser(b)
			if _, err := evalJS[int](br, `(window.benchRecord = `+bytesExpr(data)+`).length`); err != nil {
				b.Fatal(err)
			}
			type timed struct {
				MS    float64 `json:"ms"`
				OK    bool    `json:"ok"`
				Steps int     `json:"steps"`
			}
			b.SetBytes(int64(len(data)))
			pid := chromedp.FromContext(br.ctx).Browser.Process().Pid
			cpu0 := treeCPU(pid)
			b.ResetTimer()
			var total float64
			for i := 0; i < b.N; i++ {
				r, err := evalJS[timed](br, `(async () => { const t = performance.now(); const v = await logbookVerify(window.benchRecord); `+
					`return {ms: performance.now() - t, ok: v.ok, steps: v.stepCount}; })()`)
				if err != nil {
					b.Fatal(err)
				}
				if !r.OK || r.Steps < n { // the sealer adds a note for the unfinished calls
					b.Fatalf("page verdict %+v", r)
				}
				total += r.MS
			}
			b.ReportMetric(total/float64(b.N), "page-ms/op")
			b.ReportMetric((treeCPU(pid)-cpu0).Seconds()*1000/float64(b.N), "cpu-ms/op")
			br.checkQuiet(b)
		})
	}
}

// runForRSS runs prog with stdin from a file under /usr/bin/time (Debian's
// time package) and returns prog's peak resident memory in MiB. Not from
// our own wait4: Go starts children with vfork semantics, so a child's peak
// counts this test process's memory until it execs.
func runForRSS(prog, stdin string, env ...string) (float64, error) {
	f, err := os.Open(stdin)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var errb bytes.Buffer
	cmd := exec.Command("/usr/bin/time", "-f", "maxrss=%M", prog)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stderr = f, &errb
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, errb.String())
	}
	_, kb, ok := strings.Cut(strings.TrimSpace(errb.String()), "maxrss=")
	n, err := strconv.Atoi(kb)
	if !ok || err != nil {
		return 0, fmt.Errorf("no peak in %q (record-step printed something?)", errb.String())
	}
	return float64(n) / 1024, nil
}

// treeCPU is the user and system CPU time used so far by process pid and
// all its descendants (from /proc; clock ticks of 10 ms).
func treeCPU(pid int) time.Duration {
	parent := map[int]int{}
	ticks := map[int]int64{}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses and may hold spaces.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
		if len(f) < 13 {
			continue
		}
		parent[p], _ = strconv.Atoi(f[1])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		s, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[p] = u + s
	}
	var total int64
	for p, t := range ticks {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				total += t
				break
			}
		}
	}
	return time.Duration(total) * 10 * time.Millisecond
}
