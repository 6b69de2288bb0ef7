package commitcheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/verdict"
)

// allocated is the bytes f allocates in this process (git's own memory
// is its processes', each bounded by what it is asked for).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var noInputs = func(string) (verdict.Inputs, error) { return verdict.Inputs{}, nil }

// A commit whose Logbook-Record trailer is 10 MB: its line is refused
// BINDING_MALFORMED, naming the trailer, and the check allocates well
// under the trailer's size (it is skipped, never read whole); a 10 MB
// message with no trailer is UNBOUND, read by git only.
func TestTenMegabyteTrailer(t *testing.T) {
	dir := t.TempDir()
	git(t, dir, nil, "init", "-q", "-b", "main")
	git(t, dir, nil, "commit", "-q", "--allow-empty", "-m", "base")
	msg := filepath.Join(t.TempDir(), "msg")
	os.WriteFile(msg, []byte("big\n\nLogbook-Record: "+strings.Repeat("a", 10<<20)+"\n"), 0o644)
	git(t, dir, nil, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", msg)
	var lines []Line
	n := allocated(func() {
		if _, err := Check(Options{Repo: dir, Range: "main~1..main", Load: noInputs}, func(l Line) { lines = append(lines, l) }); err != nil {
			t.Fatal(err)
		}
	})
	if len(lines) != 1 || lines[0].Code == nil || *lines[0].Code != string(format.BindingMalformed) || !strings.Contains(lines[0].Detail, "trailers are over") {
		t.Fatalf("%+v", lines)
	}
	if n > 1<<20 {
		t.Errorf("the check allocated %d bytes over a 10 MB trailer, want under 1 MiB", n)
	}
	t.Logf("10 MB trailer: %s, %d bytes allocated", lines[0].Detail, n)
	// A 10 MB message with no trailer is git's to parse: unbound, and
	// never read here.
	os.WriteFile(msg, []byte("big\n\n"+strings.Repeat("word ", 2<<20)+"\n"), 0o644)
	git(t, dir, nil, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", msg)
	lines = nil
	n = allocated(func() {
		if _, err := Check(Options{Repo: dir, Range: "main~1..main", Load: noInputs}, func(l Line) { lines = append(lines, l) }); err != nil {
			t.Fatal(err)
		}
	})
	if len(lines) != 1 || lines[0].Status != Unbound || n > 1<<20 {
		t.Fatalf("a 10 MB message: %+v, %d bytes allocated", lines, n)
	}
}

// fastImport makes a repository of n commits on main, each changing one
// file, through one git fast-import stream (seconds, where n git commits
// would take minutes).
func fastImport(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, nil, "init", "-q", "-b", "main")
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Env = append(os.Environ(), gitEnv...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(in, 1<<16)
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("commit %d\n", i)
		data := fmt.Sprintf("%d\n", i)
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\ncommitter Fixture <fixture@example.com> %d +0000\ndata %d\n%s", i, 1772359200+i, len(msg), msg)
		if i > 1 {
			fmt.Fprintf(w, "from :%d\n", i-1)
		}
		fmt.Fprintf(w, "M 644 inline f.txt\ndata %d\n%s\n", len(data), data)
	}
	w.Flush()
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fast-import: %v %s", err, stderr.Bytes())
	}
	return dir
}

// A repository of 100,000 commits: the whole range is checked (every
// commit UNBOUND: no notes, no records) in bounded memory, under 64 MiB
// allocated in all (about 300 bytes a commit: its id, its line); with
// --max-commits 1,000 it is RANGE_TOO_LARGE after reading 1,001 ids, in
// well under 1 MiB. Measured, not timed.
func TestHundredThousandCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 commits: not under -short")
	}
	dir := fastImport(t, 100000)
	count := 0
	var ok bool
	var err error
	all := allocated(func() {
		ok, err = Check(Options{Repo: dir, Range: "main", Load: noInputs}, func(l Line) {
			if l.Status == Unbound {
				count++
			}
		})
	})
	if err != nil || !ok || count != 100000 {
		t.Fatalf("%v %v: %d unbound", ok, err, count)
	}
	if all > 64<<20 {
		t.Errorf("100,000 commits: %d bytes allocated, want under 64 MiB", all)
	}
	var cut error
	small := allocated(func() {
		_, cut = Check(Options{Repo: dir, Range: "main", MaxCommits: 1000, Load: noInputs}, func(Line) {})
	})
	if !errors.Is(cut, ErrTooManyCommits) {
		t.Fatalf("--max-commits 1000: %v", cut)
	}
	if small > 1<<20 {
		t.Errorf("--max-commits 1000 over 100,000 commits: %d bytes allocated, want under 1 MiB", small)
	}
	t.Logf("100,000 commits: %d bytes allocated for the whole range; %d to refuse it at --max-commits 1000", all, small)
}
