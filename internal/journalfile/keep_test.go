package journalfile

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
)

// TestKeptSameBytes: a Journal kept open between appends (Unlock, Lock)
// writes the same bytes as one opened for each append, whatever other
// writers do in between: append, leave a torn tail, list a cut and die,
// remove the file, replace the lock file (with a cut listed), replace the
// file with a copy, or rewrite its last line with one of the same length.
// Two directories get the same script; after every step their files must
// be equal.
func TestKeptSameBytes(t *testing.T) {
	fresh, kept := t.TempDir(), t.TempDir()
	k := openKept(t, kept)
	if err := k.Unlock(); err != nil {
		t.Fatal(err)
	}
	torn := []byte(`{"at":"2026-01-01T00:00:00Z","da`)
	sum := sha256.Sum256(torn)
	entry := fmt.Sprintf("%d %x\n", len(torn), sum)
	others := map[string]func(dir string){
		"append": func(dir string) { appendOne(t, dir, note("2026-01-01T00:00:05Z", "another writer")) },
		"tear": func(dir string) {
			f, _ := os.OpenFile(Path(dir, "s1"), os.O_WRONLY|os.O_APPEND, 0)
			f.Write(torn)
			f.Close()
		},
		"cut listed, writer died": func(dir string) {
			os.WriteFile(filepath.Join(dir, "s1.lock"), []byte(entry), 0o600)
		},
		"removed": func(dir string) { os.Remove(Path(dir, "s1")) },
		"lock file replaced, a cut listed": func(dir string) {
			// Whoever replaced it listed a cut there: the next append
			// notes it, reading the list at the lock file's path.
			lock := filepath.Join(dir, "s1.lock")
			os.WriteFile(lock+".new", []byte(entry), 0o600)
			os.Rename(lock+".new", lock)
		},
		"replaced by a copy": func(dir string) {
			b, _ := os.ReadFile(Path(dir, "s1"))
			os.WriteFile(Path(dir, "s1")+".new", b, 0o600)
			os.Rename(Path(dir, "s1")+".new", Path(dir, "s1"))
		},
		"last line rewritten, same length": func(dir string) {
			// One hex digit of the last step's hash, which the next
			// step links to: the file's size stays the same.
			b, _ := os.ReadFile(Path(dir, "s1"))
			if i := bytes.LastIndex(b, []byte(`"hash":"`)); i >= 0 {
				b[i+8] = "10"[b[i+8]&1]
				os.WriteFile(Path(dir, "s1"), b, 0o600)
			}
		},
	}
	names := []string{"append", "tear", "cut listed, writer died", "removed", "lock file replaced, a cut listed", "replaced by a copy", "last line rewritten, same length"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		what := "none"
		if r.IntN(3) == 0 {
			what = names[r.IntN(len(names))]
			others[what](fresh)
			others[what](kept)
		}
		st := note(fmt.Sprintf("2026-01-01T00:00:%02dZ", i%60), fmt.Sprintf("step %d", i))
		appendOne(t, fresh, st)
		if err := k.Lock(); err != nil {
			t.Fatal(err)
		}
		if _, err := k.Append(hdr, []chain.Step{st}); err != nil {
			t.Fatalf("step %d (after %s): %v", i, what, err)
		}
		seq, hash, err := k.Tip()
		if err := k.Unlock(); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(Path(fresh, "s1"))
		b, _ := os.ReadFile(Path(kept, "s1"))
		if !bytes.Equal(a, b) {
			t.Fatalf("step %d, after %q: the kept Journal wrote other bytes", i, what)
		}
		j, _ := Open(fresh, "s1")
		wantSeq, wantHash, werr := j.Tail()
		j.Close()
		if err != nil || werr != nil || seq != wantSeq || hash != wantHash {
			t.Fatalf("step %d: Tip %d %s %v, the file's tail %d %s %v", i, seq, hash, err, wantSeq, wantHash, werr)
		}
		la, _ := os.ReadFile(filepath.Join(fresh, "s1.lock"))
		lb, _ := os.ReadFile(filepath.Join(kept, "s1.lock"))
		if !bytes.Equal(la, lb) {
			t.Fatalf("step %d, after %q: lock files differ: %q, %q", i, what, la, lb)
		}
	}
}

// TestKeptReadsLittle: a kept Journal's append reads the line it wrote
// last and nothing else (a Journal opened per append reads 4 KiB back).
func TestKeptReadsLittle(t *testing.T) {
	dir := t.TempDir()
	k := openKept(t, dir)
	for i := range 3 {
		if _, err := k.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", fmt.Sprint("warm ", i))}); err != nil {
			t.Fatal(err)
		}
		k.Unlock()
		k.Lock()
	}
	before, ok := rchar()
	if !ok {
		t.Skip("no /proc/self/io")
	}
	const n = 50
	for i := range n {
		if _, err := k.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", fmt.Sprint("step ", i))}); err != nil {
			t.Fatal(err)
		}
		k.Unlock()
		k.Lock()
	}
	after, _ := rchar()
	// Each append reads its last line and the newline before it (about
	// 250 bytes here); 4 KiB would mean the tail was read again.
	if per := (after - before) / n; per > 1024 {
		t.Fatalf("a kept append read %d bytes", per)
	}
}

// TestKeptRefusesSymlink: the session's path moved away and replaced by a
// symlink to where it went. Open refuses to write through a symlink
// (durable.OpenWrite's O_NOFOLLOW); so must a kept Journal, although the
// link leads to the very file it has open.
func TestKeptRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	k := openKept(t, dir)
	if _, err := k.Append(hdr, []chain.Step{note("2026-01-01T00:00:00Z", "one")}); err != nil {
		t.Fatal(err)
	}
	if err := k.Unlock(); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.Rename(Path(dir, "s1"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, Path(dir, "s1")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, "s1"); err == nil {
		t.Fatal("Open wrote through a symlink")
	}
	if err := k.Lock(); err == nil {
		k.Append(hdr, []chain.Step{note("2026-01-01T00:00:01Z", "two")})
		t.Fatal("a kept Journal took a symlink at the session's path for its file")
	}
}

// TestKeptLockFileRemoved: the lock file removed between appends (by hand,
// or a tool that clears stale locks). Open makes a new one, and a writer
// that opens the session then must exclude the kept Journal, as it
// excludes every other: a kept Journal that still locks the removed file
// would append beside it, and fork the chain.
func TestKeptLockFileRemoved(t *testing.T) {
	dir := t.TempDir()
	k := openKept(t, dir)
	if err := k.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "s1.lock")); err != nil {
		t.Fatal(err)
	}
	if err := k.Lock(); err != nil {
		t.Fatal(err)
	}
	// Another process's Open, without waiting: it must find the lock held.
	f, err := os.OpenFile(filepath.Join(dir, "s1.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Fatal("the kept Journal holds the removed lock file: another writer locked the session beside it")
	}
}

// openKept opens session s1 in dir for a test, closed when it ends.
func openKept(t *testing.T, dir string) *Journal {
	t.Helper()
	k, err := Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}
