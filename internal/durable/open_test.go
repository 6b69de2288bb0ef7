package durable

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/testkit/ostest"
)

// TestOpenWrite: only a regular file is opened for writing. A FIFO (with a
// reader or none: neither blocks), a device, a directory and a symlink are
// refused, each named; a regular file, new or old, is opened.
func TestOpenWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := ostest.Mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "target"), link)
	os.Mkdir(filepath.Join(dir, "dir"), 0o700)
	for _, c := range []struct {
		path string
		flag int
		want string
	}{
		{fifo, os.O_RDWR | os.O_APPEND | os.O_CREATE, "named pipe (FIFO), not a regular file"},
		{fifo, os.O_WRONLY | os.O_APPEND | os.O_CREATE, "named pipe (FIFO), not a regular file"}, // no reader: ENXIO
		{"/dev/null", os.O_WRONLY | os.O_APPEND, "character device, not a regular file"},
		{filepath.Join(dir, "dir"), os.O_RDWR, "is a directory"},
		{link, os.O_RDWR | os.O_CREATE, "too many levels of symbolic links"},
	} {
		f, err := OpenWrite(c.path, c.flag, 0o600)
		if err == nil {
			f.Close()
			t.Errorf("%s (flag %#x) was opened", c.path, c.flag)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
		if strings.Contains(c.want, "not a regular file") && !errors.Is(err, readlimit.ErrNotRegular) {
			t.Errorf("%s: %v does not wrap readlimit.ErrNotRegular", c.path, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); err == nil {
		t.Error("the symlink's target was created")
	}
	f, err := OpenWrite(filepath.Join(dir, "new"), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestWriteFileRefusesNonRegular: a FIFO or directory at the path is named,
// not renamed over; a symlink there is replaced (the rename does not write
// through it), and so is a regular file.
func TestWriteFileRefusesNonRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rec.json")
	ostest.Mkfifo(fifo)
	if err := WriteFile(fifo, []byte("{}")); !errors.Is(err, readlimit.ErrNotRegular) {
		t.Fatalf("FIFO: %v", err)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o700)
	if err := WriteFile(filepath.Join(dir, "d"), []byte("{}")); !errors.Is(err, readlimit.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatal("written through the symlink")
	}
}
