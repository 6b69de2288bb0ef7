package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// samplePayload is the real Claude Code payload the floor benchmarks feed
// (a 2.4 KB PostToolUse of TodoWrite, from ../shared/samples/hooks), or
// nil when the shared samples are absent.
func samplePayload(tb testing.TB) []byte {
	dir := filepath.Join("..", "..", "shared", "samples", "hooks")
	if c := os.Getenv("LOGBOOK_CORPORA"); c != "" {
		dir = filepath.Join(c, "..", "samples", "hooks")
	}
	b, err := os.ReadFile(filepath.Join(dir, "claude-code", "post-tool-use-todowrite.json"))
	if err != nil {
		tb.Skip("shared samples absent: the floor benchmarks need ../shared/samples/hooks")
	}
	return b
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
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(c.argv[0], c.argv[1:]...)
				cmd.Stdin = bytes.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("%v %s", err, out)
				}
			}
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
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd := exec.Command(filepath.Join(bin, "record-step"))
				cmd.Env = env
				cmd.Stdin = bytes.NewReader(benchPayload)
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					b.Fatalf("%v %s", err, out)
				}
				b.StopTimer()
				os.Truncate(path, st.Size())
				b.StartTimer()
			}
		})
	}
}
