package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// /dev/zero never ends: a device is refused unread by both readers (it
// used to be read to the limit, 1 GiB for a record, before the refusal),
// and the error names the file and what it is.
func TestDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, read := range []func(string, int64) ([]byte, error){Small, Large} {
		_, err := read("/dev/zero", 4<<10)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "character device") {
			t.Fatalf("read(/dev/zero) = %v, want ErrNotRegular naming the file and the device", err)
		}
	}
}

// A pipe that goes on past the limit: Large stops one byte past it and
// refuses; one within the limit is read whole.
func TestFIFOWriter(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := ostest.Mkfifo(p); err != nil {
		t.Skip("mkfifo:", err)
	}
	feed := func(n int) {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(make([]byte, n)) // fails with EPIPE once the reader stops
	}
	for _, c := range []struct{ n, limit int }{{1 << 20, 256 << 10}, {300 << 10, 512 << 10}} {
		done := make(chan struct{})
		go func() { feed(c.n); close(done) }()
		// Large opens with O_NONBLOCK: wait until the writer is there,
		// or the FIFO reads as empty.
		r, err := os.OpenFile(p, os.O_RDONLY, 0) // blocks until the writer opens
		if err != nil {
			t.Fatal(err)
		}
		b, err := Large(p, int64(c.limit))
		r.Close()
		<-done
		if c.n > c.limit {
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%d bytes, limit %d: %v", c.n, c.limit, err)
			}
		} else if err != nil || len(b) != c.n {
			t.Errorf("%d bytes, limit %d: got %d, %v", c.n, c.limit, len(b), err)
		}
	}
}

// A FIFO nobody writes to: Small refuses it, Large reads it as empty; neither
// waits for a writer.
func TestFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := ostest.Mkfifo(p); err != nil {
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

// Open refuses what Small refuses, before anything is read: over the
// limit, a directory, a FIFO, a device; a regular file comes open, with
// its size.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("12345"), 0o600)
	f, size, err := Open(p, 5)
	if err != nil || size != 5 {
		t.Fatalf("at the limit: %d, %v", size, err)
	}
	f.Close()
	if _, _, err := Open(p, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), p) {
		t.Errorf("over the limit: %v", err)
	}
	if _, _, err := Open(dir, 4); err == nil {
		t.Errorf("a directory was opened")
	}
	if _, _, err := Open(filepath.Join(dir, "none"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, _, err := Open("/dev/zero", 4); !errors.Is(err, ErrNotRegular) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if ostest.Mkfifo(fifo) == nil {
		if _, _, err := Open(fifo, 4); !errors.Is(err, ErrNotRegular) {
			t.Errorf("fifo: %v", err)
		}
	}
}
