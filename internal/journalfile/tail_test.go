package journalfile

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// rchar is how many bytes this process has read through read(2) and
// pread(2) so far (Linux /proc/self/io); ok is false elsewhere.
func rchar() (int64, bool) {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("rchar: ")); ok {
			n, err := strconv.ParseInt(string(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestAppendReadsOnlyTheTail is the deterministic guard behind "per-step
// cost does not grow with the session": an append at step 100,000 reads
// no more of the file than one at step 10 (the last line, found from the
// end), counted in bytes read by the process, not timed.
func TestAppendReadsOnlyTheTail(t *testing.T) {
	if _, ok := rchar(); !ok {
		t.Skip("no /proc/self/io here: bytes read cannot be counted")
	}
	step := chain.Step{Kind: "exec", Summary: "PreToolUse Bash: make", Data: strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str("PreToolUse")})}
	read := map[int]int64{}
	for _, n := range []int{10, 100000} {
		dir := t.TempDir()
		j, err := Open(dir, "s")
		if err != nil {
			t.Fatal(err)
		}
		steps := make([]chain.Step, n)
		for i := range steps {
			steps[i] = step
			steps[i].At = fmt.Sprintf("2026-05-01T00:00:00.%06dZ", i)
		}
		if _, err := j.Append(Header{Session: "s"}, steps); err != nil {
			t.Fatal(err)
		}
		j.Close()
		j, err = Open(dir, "s")
		if err != nil {
			t.Fatal(err)
		}
		before, _ := rchar()
		step.At = "2026-05-02T00:00:00Z"
		if _, err := j.AppendNow(Header{Session: "s"}, []chain.Step{step}, func() string { return "2026-05-02T00:00:00Z" }); err != nil {
			t.Fatal(err)
		}
		after, _ := rchar()
		j.Close()
		read[n] = after - before
	}
	// The last line is longer at step 100,000 (longer seq, the read is
	// rounded to blocks): bounded, not proportional to the file (20 MB).
	if read[100000] > 2*read[10] || read[100000] > 64<<10 {
		t.Errorf("bytes read by one append: %d at step 10, %d at step 100,000", read[10], read[100000])
	}
	t.Logf("bytes read by one append: %d at step 10, %d at step 100,000", read[10], read[100000])
}
