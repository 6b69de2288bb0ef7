package journalfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

func note(at, summary string) chain.Step {
	return chain.Step{At: at, Kind: "note", Summary: summary, Data: strictjson.Obj()}
}

var hdr = Header{Session: "s1", Cwd: "/w", Harness: "test"}

func appendOne(t *testing.T, dir string, s chain.Step) {
	t.Helper()
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(hdr, []chain.Step{s}); err != nil {
		t.Fatal(err)
	}
}

// readAll returns the summaries and event names of the steps.
func readAll(t *testing.T, dir string) (Header, []stepInfo) {
	t.Helper()
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var steps []stepInfo
	h, all, err := j.ReadAll(func(i int, v *strictjson.Value) error {
		var s stepInfo
		s.summary, _ = v.GetString("summary")
		s.event, _ = v.Get("data").GetString("event")
		steps = append(steps, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if all.Count != len(steps) || all.JSON[0] != '[' || all.JSON[len(all.JSON)-1] != ']' {
		t.Fatalf("bad steps %d %q", all.Count, all.JSON)
	}
	return h, steps
}

type stepInfo struct{ summary, event string }

func TestAppendAndRead(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		appendOne(t, dir, note("2026-01-01T00:00:00Z", fmt.Sprint("step ", i)))
	}
	h, steps := readAll(t, dir)
	if h != hdr || len(steps) != 5 {
		t.Fatalf("header %+v, %d steps", h, len(steps))
	}
}

// TestLongLastLine: the tail reader grows its window past 4 KiB lines.
func TestLongLastLine(t *testing.T) {
	dir := t.TempDir()
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "short"))
	appendOne(t, dir, note("2026-01-01T00:00:00Z", strings.Repeat("x", 50000)))
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "after"))
	if _, steps := readAll(t, dir); len(steps) != 3 {
		t.Fatalf("%d steps", len(steps))
	}
}

// TestTornTail: bytes after the last newline (a writer killed mid-write)
// are cut at the next append, which records a note saying so.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "one"))
	f, _ := os.OpenFile(Path(dir, "s1"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"at":"2026-01-01T00:00:00Z","data":{},"dos`)
	f.Close()
	appendOne(t, dir, note("2026-01-01T00:00:01Z", "two"))
	_, steps := readAll(t, dir)
	if len(steps) != 3 {
		t.Fatalf("%d steps, want 3 (one, torn-tail note, two)", len(steps))
	}
	if ev := steps[1].event; ev != "logbook.tornTail" {
		t.Fatalf("step 1 is %q, want the torn-tail note", ev)
	}
	if s := steps[2].summary; s != "two" {
		t.Fatalf("step 2 summary %q", s)
	}
}

// TestTamperedInProgressRefused: an in-progress file edited behind the
// recorder's back does not read back (it would not be sealed).
func TestTamperedInProgressRefused(t *testing.T) {
	dir := t.TempDir()
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "one"))
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "two"))
	b, _ := os.ReadFile(Path(dir, "s1"))
	os.WriteFile(Path(dir, "s1"), []byte(strings.Replace(string(b), `"summary":"one"`, `"summary":"uno"`, 1)), 0o600)
	j, _ := Open(dir, "s1")
	defer j.Close()
	if _, _, err := j.ReadAll(nil); err == nil || !strings.Contains(err.Error(), "hash does not recompute") {
		t.Fatalf("want a hash error, got %v", err)
	}
}

// TestConcurrentAppends: goroutines with their own descriptors contend for
// the flock; every step lands once, seqs are contiguous, the chain links.
func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				appendOne(t, dir, note("2026-01-01T00:00:00Z", fmt.Sprintf("w%d-%d", w, i)))
			}
		}(w)
	}
	wg.Wait()
	_, steps := readAll(t, dir) // ReadAll checks seq, prev and hash
	seen := map[string]bool{}
	for _, s := range steps {
		sum := s.summary
		if seen[sum] {
			t.Fatalf("%s twice", sum)
		}
		seen[sum] = true
	}
	if len(seen) != 400 {
		t.Fatalf("%d distinct steps, want 400", len(seen))
	}
}

func TestSessionIDs(t *testing.T) {
	for _, id := range []string{"", ".", "..", "../x", "a/b", "a\x00b", ".hidden", "-rf", strings.Repeat("a", 4000), "a b", "é"} {
		if ValidSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
		if _, err := Open(t.TempDir(), id); err == nil {
			t.Errorf("Open accepted %q", id)
		}
	}
	for _, id := range []string{"61ddcbba-cf39-4052-b41c-c444f6cf0fdf", "a", "A_b.c-d", strings.Repeat("z", 128)} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
}

// TestSymlinksRefused: a symlink planted where the lock or the in-progress
// file goes is not followed.
func TestSymlinksRefused(t *testing.T) {
	for _, name := range []string{"s1.lock", "s1.steps.jsonl"} {
		dir := t.TempDir()
		target := filepath.Join(t.TempDir(), "target")
		os.WriteFile(target, []byte("keep\n"), 0o600)
		os.Symlink(target, filepath.Join(dir, name))
		if j, err := Open(dir, "s1"); err == nil {
			j.Close()
			t.Errorf("%s: a symlink was followed", name)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep\n" {
			t.Errorf("%s: the symlink target changed", name)
		}
	}
}

// TestTornHeader: a file holding only a torn first line gets a header
// again, and the note, before the new step.
func TestTornHeader(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir, 0o700)
	os.WriteFile(Path(dir, "s1"), []byte(`{"cwd":"/w","form`), 0o600)
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "one"))
	h, steps := readAll(t, dir)
	if h != hdr || len(steps) != 2 || steps[0].event != "logbook.tornTail" || steps[1].summary != "one" {
		t.Fatalf("header %+v steps %+v", h, steps)
	}
}

// TestCutNotedOnce: a cut listed in the lock file by a writer that died
// before cutting, or whose notes reached the disk before it died, is
// noted exactly once; a cut whose note never landed is noted later.
func TestCutNotedOnce(t *testing.T) {
	tornBytes := []byte(`{"at":"2026-01-01T00:00:00Z","da`)
	sum := sha256.Sum256(tornBytes)
	entry := fmt.Sprintf("%d %x\n", len(tornBytes), sum)
	count := func(dir string) int {
		_, steps := readAll(t, dir)
		n := 0
		for _, s := range steps {
			if s.event == "logbook.tornTail" {
				n++
			}
		}
		return n
	}
	tear := func(dir string) {
		f, _ := os.OpenFile(Path(dir, "s1"), os.O_WRONLY|os.O_APPEND, 0)
		f.Write(tornBytes)
		f.Close()
	}

	// Listed, then the writer died before cutting: listed again? No.
	dir := t.TempDir()
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "one"))
	tear(dir)
	os.WriteFile(filepath.Join(dir, "s1.lock"), []byte(entry), 0o600)
	appendOne(t, dir, note("2026-01-01T00:00:01Z", "two"))
	if n := count(dir); n != 1 {
		t.Fatalf("died between listing and cutting: %d notes", n)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "s1.lock")); len(b) != 0 {
		t.Fatalf("the list of cuts was not emptied: %q", b)
	}

	// Cut, then the writer died before its note landed: noted later.
	dir = t.TempDir()
	appendOne(t, dir, note("2026-01-01T00:00:00Z", "one"))
	os.WriteFile(filepath.Join(dir, "s1.lock"), []byte(entry), 0o600)
	appendOne(t, dir, note("2026-01-01T00:00:01Z", "two"))
	if n := count(dir); n != 1 {
		t.Fatalf("died after cutting: %d notes", n)
	}

	// The note landed, the writer died before emptying the list: a second
	// write does not note it again, and Repair has nothing to add.
	os.WriteFile(filepath.Join(dir, "s1.lock"), []byte(entry), 0o600)
	// Make the note the last line, as a write that died after it leaves it.
	data, _ := os.ReadFile(Path(dir, "s1"))
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	os.WriteFile(Path(dir, "s1"), append(bytes.Join(lines[:len(lines)-1], []byte("\n")), '\n'), 0o600)
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := j.Repair("2026-01-01T00:00:02Z"); n != 0 || err != nil {
		t.Fatalf("Repair wrote %d notes (%v)", n, err)
	}
	j.Close()
	if n := count(dir); n != 1 {
		t.Fatalf("note already on disk: %d notes", n)
	}
}

// TestTip: after an append, Tip gives what Tail reads from the file.
func TestTip(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "tip")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := 0; i < 3; i++ {
		st := chain.Step{At: "2026-01-01T00:00:00Z", Kind: "note", Summary: "x", Data: strictjson.Obj()}
		if _, err := j.Append(Header{Session: "tip"}, []chain.Step{st}); err != nil {
			t.Fatal(err)
		}
		s1, h1, err1 := j.Tip()
		s2, h2, err2 := j.Tail()
		if err1 != nil || err2 != nil || s1 != s2 || h1 != h2 || s1 != int64(i) {
			t.Fatalf("Tip %d %s %v, Tail %d %s %v", s1, h1, err1, s2, h2, err2)
		}
	}
}

// TestLog: every write is given to Log once made, with the offset it
// went to and its bytes (the header line with the first); a Log that
// fails takes the write back and fails the append, so no byte the log
// lacks stays in the file.
func TestLog(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var got bytes.Buffer
	var fail error
	j.Log = func(name string, off int64, b []byte) error {
		if name != "s1.steps.jsonl" || off != int64(got.Len()) {
			t.Errorf("logged %s at %d, want s1.steps.jsonl at %d", name, off, got.Len())
		}
		if fail != nil {
			return fail
		}
		got.Write(b)
		return nil
	}
	for i := range 3 {
		if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", fmt.Sprint("n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	fail = fmt.Errorf("log full")
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "lost")}); err == nil || !strings.Contains(err.Error(), "log full") {
		t.Fatalf("append with a failing log: %v", err)
	}
	fail = nil
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "n3")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(Path(dir, "s1"))
	if !bytes.Equal(b, got.Bytes()) || bytes.Contains(b, []byte("lost")) {
		t.Fatalf("file and log differ:\n%s\n%s", b, got.Bytes())
	}
}

// TestLogUntaken: the log fails and the bytes written cannot be taken
// back either: the next append takes them back first, so that the file
// stays what the log holds. Before, the next append linked after them,
// and the log held a write above bytes it did not hold, which replay
// skips (the file, after a power loss, shorter than where it went).
func TestLogUntaken(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var got bytes.Buffer
	var fail error
	j.Log = func(name string, off int64, b []byte) error {
		if fail != nil {
			return fail
		}
		got.Write(b)
		return nil
	}
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "n0")}); err != nil {
		t.Fatal(err)
	}
	truncate := FS.Truncate
	defer func() { FS.Truncate = truncate }()
	FS.Truncate = func(*os.File, int64) error { return errors.New("EIO") }
	fail = errors.New("log full")
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "lost")}); err == nil {
		t.Fatal("append with a failing log")
	}
	fail = nil
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "n1")}); err == nil {
		t.Fatal("append over bytes not taken back")
	}
	FS.Truncate = truncate
	if _, err := j.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "n1")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(Path(dir, "s1"))
	if !bytes.Equal(b, got.Bytes()) || bytes.Contains(b, []byte("lost")) {
		t.Fatalf("file and log differ:\n%s\n%s", b, got.Bytes())
	}
}
