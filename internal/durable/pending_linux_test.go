package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRenameat2Number: the system call number renameNoReplace uses is
// x/sys/unix's for this architecture (the package itself stays out of
// durable's start-up).
func TestRenameat2Number(t *testing.T) {
	t.Parallel()
	if got := renameat2Number(runtime.GOARCH); got != unix.SYS_RENAMEAT2 {
		t.Errorf("renameat2Number(%s) = %d, x/sys/unix says %d", runtime.GOARCH, got, unix.SYS_RENAMEAT2)
	}
	if atFDCWD != unix.AT_FDCWD || renameNoReplaceFlag != unix.RENAME_NOREPLACE {
		t.Errorf("AT_FDCWD %d, RENAME_NOREPLACE %d: x/sys/unix says %d, %d", atFDCWD, renameNoReplaceFlag, unix.AT_FDCWD, unix.RENAME_NOREPLACE)
	}
}

// TestRenameNoReplace: the call itself, on this machine's file system: a
// new name is renamed to; an existing one is left alone, both files intact,
// with fs.ErrExist; a missing source is the kernel's ENOENT.
func TestRenameNoReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := renameNoReplace(a, b); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("onto an existing file: %v, want fs.ErrExist", err)
	}
	for _, p := range []string{a, b} {
		if got, err := os.ReadFile(p); err != nil || string(got) != p {
			t.Fatalf("%s after a refused rename: %q %v", p, got, err)
		}
	}
	if err := renameNoReplace(a, c); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(c); err != nil || string(got) != a {
		t.Fatalf("renamed: %q %v", got, err)
	}
	if _, err := os.Lstat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the old name is still there: %v", err)
	}
	if err := renameNoReplace(a, filepath.Join(dir, "d")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing source: %v, want ENOENT", err)
	}
}
