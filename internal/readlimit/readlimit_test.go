package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// /dev/zero never ends: each reader stops one byte past its limit (Large)
// or refuses the device unread (Small), and names the file.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := Large("/dev/zero", 4<<10)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Limit != 4<<10 {
		t.Fatalf("Large(/dev/zero) = %v, want TooLargeError", err)
	}
	if !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "4 KiB") {
		t.Errorf("error %q names neither file nor limit", err)
	}
	if _, err := Small("/dev/zero", 4<<10); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Small(/dev/zero) = %v, want ErrNotRegular", err)
	}
}

// A FIFO nobody writes to: Small refuses it, Large reads it as empty; neither
// waits for a writer.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, err := Small(p, 1<<10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Small(fifo) = %v, want ErrNotRegular", err)
	}
	if b, err := Large(p, 1<<10); err != nil || len(b) != 0 {
		t.Errorf("Large(fifo) = %q, %v; want empty", b, err)
	}
}

func TestRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("12345"), 0o600)
	for _, read := range []func(string, int64) ([]byte, error){Small, Large} {
		if b, err := read(p, 5); err != nil || string(b) != "12345" {
			t.Errorf("at the limit: %q, %v", b, err)
		}
		if _, err := read(p, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
			t.Errorf("over the limit: %v", err)
		}
		if _, err := read(dir, 4); err == nil {
			t.Errorf("a directory was read")
		}
	}
}
