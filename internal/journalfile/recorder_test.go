package journalfile

import (
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
)

type countingSource struct {
	n int
	r *format.Recorder
}

func (c *countingSource) Recorder() *format.Recorder { c.n++; return c.r }

// TestHeaderRecorder: the recorder is described once, when the header is
// written, and read back from the header.
func TestHeaderRecorder(t *testing.T) {
	dir := t.TempDir()
	src := &countingSource{r: &format.Recorder{Name: "record-step", Version: "v1", SHA256: strings.Repeat("ab", 32)}}
	h := Header{Session: "s1", Cwd: "/w", Harness: "test", Describe: src}
	for i := 0; i < 5; i++ {
		j, err := Open(dir, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(h, []chain.Step{note("2026-01-01T00:00:00Z", "x")}); err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
	if src.n != 1 {
		t.Fatalf("the recorder was described %d times for 5 appends, want once", src.n)
	}
	got, steps := readAll(t, dir)
	if got.Recorder == nil || *got.Recorder != *src.r || len(steps) != 5 {
		t.Fatalf("header %+v", got)
	}
}

func TestHeaderRecorderRefused(t *testing.T) {
	for _, line := range []string{
		`{"cwd":"/w","format":"logbook/in-progress@0","harness":"t","recorder":{"name":"x","sha256":"AB","version":"1"},"session":"s1"}`,
		`{"cwd":"/w","format":"logbook/in-progress@0","harness":"t","recorder":{"name":"x","version":"1"},"session":"s1"}`,
		`{"cwd":"/w","format":"logbook/in-progress@0","harness":"t","recorder":"record-step","session":"s1"}`,
	} {
		dir := t.TempDir()
		os.WriteFile(Path(dir, "s1"), []byte(line+"\n"), 0o600)
		j, err := Open(dir, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := j.ReadAll(nil); err == nil {
			t.Errorf("header accepted: %s", line)
		}
		j.Close()
	}
	bad := Header{Session: "s1", Describe: &countingSource{r: &format.Recorder{Name: "x", SHA256: "short"}}}
	j, err := Open(t.TempDir(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(bad, []chain.Step{note("2026-01-01T00:00:00Z", "x")}); err == nil {
		t.Error("a malformed recorder was written")
	}
}
