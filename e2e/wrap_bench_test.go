package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// BenchmarkWrapOverhead times, interleaved in one run, the bare command
// `true`, a minimal Go program that only starts `true` (execfloor: the
// floor for any Go wrapper on this machine), and `logbook-wrap -- true`
// appending to a session and sealing a one-shot record, whose floor is
// execfloor2 (execfloor starting execfloor starting `true`; issue 22:
// wrap-oneshot ≤ 1.5× execfloor2). execfloor2-durable is execfloor2 that
// also writes a record-sized file as --out must, crash-safely (two
// fsyncs): oneshot/floor2-durable shows how much of the rest is the
// wrapper's own work and how much the disk's. Medians, so that a
// neighbour's burst of load does not decide the figure; the *-cpu-ms
// metrics (user + system time of the process and the ones it waited for)
// are what each arm costs the machine, which load disturbs less than the
// wall time. The ratio and the overhead in milliseconds are
// logbook-wrap's (session) against `true`. With LOGBOOK_E2E_WRAP_BEFORE
// set, an older logbook-wrap's --out runs as one more arm.
func BenchmarkWrapOverhead(b *testing.B) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	work := b.TempDir()
	floor := filepath.Join(work, "execfloor")
	if out, err := exec.Command("go", "build", "-o", floor, "./testdata/execfloor").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	key := filepath.Join(work, "k")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	wrapper := filepath.Join(bin, "logbook-wrap")
	arms := []struct {
		name string
		argv []string
	}{
		{"true", []string{truePath}},
		{"execfloor", []string{floor, truePath}},
		// --out's floor: two Go process starts and the command (a wrapper
		// and the sealer it ran before the seal moved in process).
		{"execfloor2", []string{floor, floor, truePath}},
		{"execfloor2-durable", []string{floor, floor, truePath}},
		{"wrap-session", []string{wrapper, "--dir", filepath.Join(work, "s"), "--session", "bench", "--", truePath}},
		{"wrap-oneshot", []string{wrapper, "--out", filepath.Join(work, "r.json"), "--key", key, "--", truePath}},
	}
	// LOGBOOK_E2E_WRAP_BEFORE=/path/to/an/older/logbook-wrap adds its --out
	// as an arm of the same run: before and after side by side, under the
	// same load (docs/performance.md).
	before := os.Getenv("LOGBOOK_E2E_WRAP_BEFORE")
	if before != "" {
		arms = append(arms, struct {
			name string
			argv []string
		}{"wrap-oneshot-before", []string{before, "--out", filepath.Join(work, "r.json"), "--key", key, "--", truePath}})
	}
	durableOut := filepath.Join(work, "d.json")
	times := make([][]time.Duration, len(arms))
	cpus := make([][]time.Duration, len(arms))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, a := range arms {
			cmd := exec.Command(a.argv[0], a.argv[1:]...)
			if a.name == "execfloor2-durable" {
				// Only the outer execfloor writes (it unsets the
				// variable for its command).
				cmd.Env = append(os.Environ(), "EXECFLOOR_DURABLE="+durableOut)
			}
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v %s", a.name, err, out)
			}
			times[j] = append(times[j], time.Since(t0))
			cpus[j] = append(cpus[j], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
			os.Remove(filepath.Join(work, "r.json")) // --out never replaces a record
			os.Remove(durableOut)
		}
	}
	b.StopTimer()
	med := make(map[string]float64, len(arms))
	for j, a := range arms {
		med[a.name] = median(times[j])
		b.ReportMetric(med[a.name], a.name+"-ms")
		b.ReportMetric(median(cpus[j]), a.name+"-cpu-ms")
	}
	b.ReportMetric(med["wrap-session"]/med["true"], "wrap/true")
	b.ReportMetric(med["wrap-session"]-med["true"], "overhead-ms")
	b.ReportMetric(med["wrap-session"]-med["execfloor"], "over-floor-ms")
	b.ReportMetric(med["wrap-oneshot"]/med["execfloor2"], "oneshot/floor2") // issue 22: ≤ 1.5
	b.ReportMetric(med["wrap-oneshot"]/med["execfloor2-durable"], "oneshot/floor2-durable")
	b.ReportMetric(med["execfloor2-durable"]-med["execfloor2"], "durable-write-ms")
	b.ReportMetric(med["wrap-oneshot"]/med["execfloor"], "oneshot/floor")
	if before != "" {
		b.ReportMetric(med["wrap-oneshot-before"]/med["execfloor2"], "before/floor2")
		b.ReportMetric(med["wrap-oneshot"]/med["wrap-oneshot-before"], "oneshot/before")
	}
}

func median(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

// BenchmarkWrapThroughput pushes 1 GiB through a command's stdout into a
// pipe this process drains, bare and through logbook-wrap (which hashes it
// on the way); MB/s is the figure. Two writers: dd writing a mebibyte at a
// time (so the writer is not what limits the rate) and head, which writes
// 8 KiB at a time like most tools. cpu-s is the CPU time (user + system)
// of the command, and with the wrapper of the wrapper and the command: the
// difference is what the wrapper spends per GiB, a figure a busy machine
// disturbs less than the wall time. Every wrapped run's end step must
// count every byte.
func BenchmarkWrapThroughput(b *testing.B) {
	const size = 1 << 30
	dir := b.TempDir()
	wrapper := []string{filepath.Join(bin, "logbook-wrap"), "--dir", dir, "--session", "tp", "--"}
	for _, w := range []struct {
		name string
		argv []string
	}{
		{"dd-1MiB", []string{"dd", "if=/dev/zero", "bs=1048576", "count=1024", "status=none"}},
		{"head-8KiB", []string{"head", "-c", strconv.Itoa(size), "/dev/zero"}},
	} {
		for _, wrapped := range []bool{false, true} {
			name, argv := w.name+"/bare", w.argv
			if wrapped {
				name, argv = w.name+"/wrapped", append(append([]string{}, wrapper...), w.argv...)
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(size)
				var cpu time.Duration
				for i := 0; i < b.N; i++ {
					r, pw, err := os.Pipe()
					if err != nil {
						b.Fatal(err)
					}
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Stdout = pw
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					pw.Close()
					n, _ := io.CopyBuffer(io.Discard, r, make([]byte, 1<<20))
					r.Close()
					if err := cmd.Wait(); err != nil || n != size {
						b.Fatalf("%v, %d bytes", err, n)
					}
					cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
					if wrapped {
						if got := lastStepInt(b, dir, "tp", "stdoutBytes"); got != size {
							b.Fatalf("recorded stdoutBytes %d, want %d", got, size)
						}
					}
				}
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
			})
		}
	}
}

// lastStepInt reads an integer from the data of a session's last step.
func lastStepInt(tb testing.TB, dir, session, key string) int64 {
	j, err := journalfile.Open(dir, session)
	if err != nil {
		tb.Fatal(err)
	}
	defer j.Close()
	var n int64
	_, _, err = j.ReadAll(func(_ int, v *strictjson.Value) error {
		if x := v.Get("data").Get(key); x != nil {
			n, _ = strconv.ParseInt(x.Str, 10, 64)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}
