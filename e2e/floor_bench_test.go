package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// samplePayload is the Claude Code payload the floor benchmarks feed: the
// real 2.4 KB PostToolUse of TodoWrite from the shared samples when they
// are there (internal/testkit/corpora), else the synthesized TodoWrite payload.
func samplePayload(tb testing.TB) []byte {
	if p, ok := corpora.Find("samples/hooks/claude-code/post-tool-use-todowrite.json"); ok {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	for _, p := range synth.ClaudePayloads() {
		if p.Name == "claude-code/post-tool-use-todowrite.json" {
			tb.Logf("shared samples absent: feeding the synthesized TodoWrite payload (%d bytes)", len(p.JSON))
			return p.JSON
		}
	}
	tb.Fatal("no TodoWrite payload")
	return nil
}

// BenchmarkHookFloor runs, one after the other in the same run, three
// processes fed the same real payload on stdin: sh -c 'cat >> file' (the
// floor for any hook that keeps the event), an empty Go program (the floor
// for any Go hook), and record-step. Compare them with benchstat.
func BenchmarkHookFloor(b *testing.B) {
	payload := samplePayload(b)
	empty := filepath.Join(b.TempDir(), "emptygo")
	if out, err := exec.Command("go", "build", "-o", empty, "./testdata/emptygo").CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	dir := b.TempDir()
	// A session already under way: the first event's one-time hashing of
	// the executable is not what is measured.
	prime := exec.Command(filepath.Join(bin, "record-step"), "--dir", dir)
	prime.Stdin = bytes.NewReader(payload)
	if out, err := prime.CombinedOutput(); err != nil || len(out) > 0 {
		b.Fatalf("%v %s", err, out)
	}
	file := filepath.Join(dir, "events")
	cases := []struct {
		name string
		argv []string
	}{
		{"cat", []string{"sh", "-c", "cat >> " + file}},
		{"emptygo", []string{empty}},
		{"record-step", []string{filepath.Join(bin, "record-step"), "--dir", dir}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Stdin = bytes.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("%v %s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			// CPU time (user+system, of the process and its children) moves
			// less than the clock on a machine shared with other work.
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkRecordStepLength: the whole process for one event at step 10
// and at step 100,000 of a session (prepared synthetically): an append
// reads only the file's last line, so the two must cost the same.
func BenchmarkRecordStepLength(b *testing.B) {
	for _, n := range []int{10, 100000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			prefill(b, dir, n)
			path := filepath.Join(dir, "bench.steps.jsonl")
			st, _ := os.Stat(path)
			env := append(os.Environ(), "LOGBOOK_DIR="+dir)
			b.SetBytes(int64(len(benchPayload)))
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(filepath.Join(bin, "record-step"))
				cmd.Env = env
				cmd.Stdin = bytes.NewReader(benchPayload)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("%v %s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				b.StopTimer()
				os.Truncate(path, st.Size())
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
