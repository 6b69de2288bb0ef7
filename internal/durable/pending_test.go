package durable

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errDead = errors.New("the process is dead")

// dyingOps are OSOps for a process that dies at its n-th call (from 0):
// that call does nothing (a write, half of its bytes), and every call
// after it fails, as no call is made after a crash. *died tells whether n
// was reached.
func dyingOps(n int, died *bool) Ops {
	calls := 0
	// dead reports whether the process is dead at this call; dying is
	// true for the one call it dies in.
	dead := func() (isDead, dying bool) {
		if *died {
			return true, false
		}
		if calls == n {
			*died = true
			return true, true
		}
		calls++
		return false, false
	}
	return Ops{
		Create: func(path string, mode os.FileMode) (*os.File, error) {
			if isDead, _ := dead(); isDead {
				return nil, errDead
			}
			return OSOps.Create(path, mode)
		},
		WriteAt: func(f *os.File, b []byte, off int64) (int, error) {
			if isDead, dying := dead(); isDead {
				if !dying {
					return 0, errDead
				}
				k, _ := f.WriteAt(b[:len(b)/2], off) // torn inside the write
				return k, errDead
			}
			return OSOps.WriteAt(f, b, off)
		},
		Sync: func(f *os.File) error {
			if isDead, _ := dead(); isDead {
				return errDead
			}
			return OSOps.Sync(f)
		},
		Rename: func(old, new string) error {
			if isDead, _ := dead(); isDead {
				return errDead
			}
			return OSOps.Rename(old, new)
		},
		SyncDir: func(dir string) error {
			if isDead, _ := dead(); isDead {
				return errDead
			}
			return OSOps.SyncDir(dir)
		},
		Remove: func(path string) error {
			if isDead, _ := dead(); isDead {
				return errDead // a dead process cleans nothing up
			}
			return OSOps.Remove(path)
		},
	}
}

// TestPendingCrashPoints: a process dying at any call of Prepare and
// Commit (inside the content's write too) leaves either no file at the
// path or the whole content, never part of it; one that lives leaves the
// whole content with its mode, and no temporary file.
func TestPendingCrashPoints(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat(`{"a record":"whole"}`, 400))
	for n := 0; ; n++ {
		dir := t.TempDir()
		path, tmp := filepath.Join(dir, "r.json"), filepath.Join(dir, "private", "r.tmp")
		if err := os.Mkdir(filepath.Dir(tmp), 0o700); err != nil {
			t.Fatal(err)
		}
		died := false
		p, err := Prepare(dyingOps(n, &died), tmp, path, 0o644)
		if err == nil {
			err = p.Commit(data)
		}
		got, rerr := os.ReadFile(path)
		if rerr == nil && !bytes.Equal(got, data) {
			t.Fatalf("dying at call %d left %d bytes of %d at the path", n, len(got), len(data))
		}
		if died {
			if err == nil {
				t.Fatalf("call %d: died, yet Commit succeeded", n)
			}
			continue
		}
		// Lived: n is past the last call.
		if err != nil || rerr != nil {
			t.Fatalf("no death: %v, %v", err, rerr)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
			t.Errorf("mode %v", st.Mode())
		}
		if _, err := os.Stat(tmp); err == nil {
			t.Error("temporary file left")
		}
		if n < 5 {
			t.Fatalf("only %d calls: Create, WriteAt, Sync, Rename, SyncDir expected", n)
		}
		return
	}
}

// TestPendingNeverReplaces: Commit onto an existing file is a no-op when
// it holds the same bytes, else ErrExists; the file is untouched and the
// temporary file removed either way. A failed Commit leaves nothing.
func TestPendingNeverReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	os.WriteFile(path, []byte("old"), 0o600)
	for _, c := range []struct {
		data string
		ok   bool
	}{{"old", true}, {"new", false}} {
		tmp := filepath.Join(dir, "t")
		p, err := Prepare(OSOps, tmp, path, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Commit([]byte(c.data))
		if c.ok != (err == nil) || !c.ok && !errors.Is(err, ErrExists) {
			t.Errorf("%q: %v", c.data, err)
		}
		if got, _ := os.ReadFile(path); string(got) != "old" {
			t.Errorf("%q: the file became %q", c.data, got)
		}
		if _, err := os.Stat(tmp); err == nil {
			t.Errorf("%q: temporary file left", c.data)
		}
	}
	// Abort, and a second Commit, write nothing.
	p, err := Prepare(OSOps, filepath.Join(dir, "t"), filepath.Join(dir, "other.json"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if err := p.Commit([]byte("x")); err == nil {
		t.Error("Commit after Abort")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
}
