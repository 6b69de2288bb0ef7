package durable

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenNoFollow: a symlink in the last element is refused with ELOOP
// (on Windows too: the reparse point is opened and refused), a file is
// opened.
func TestOpenNoFollow(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "f"), filepath.Join(dir, "l")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenNoFollow(link, os.O_RDWR|os.O_APPEND, 0); !errors.Is(err, syscall.ELOOP) {
		if f != nil {
			f.Close()
		}
		t.Errorf("through a symlink: %v, want ELOOP", err)
	}
	f, err := OpenNoFollow(file, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
