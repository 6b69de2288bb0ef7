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

// TestPlace: a finished file is renamed over the path with its mode set;
// a FIFO at the path is named and left alone, and so is the file.
func TestPlace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tmp, out := filepath.Join(dir, ".tmp"), filepath.Join(dir, "rec.json")
	os.WriteFile(tmp, []byte("new"), 0o600)
	os.WriteFile(out, []byte("old"), 0o600)
	if err := Place(tmp, out, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if b, _ := os.ReadFile(out); err != nil || string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Fatalf("placed %q mode %v (%v)", b, st.Mode(), err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the temporary file is still there")
	}
	fifo := filepath.Join(dir, "fifo.json")
	ostest.Mkfifo(fifo)
	os.WriteFile(tmp, []byte("new"), 0o600)
	if err := Place(tmp, fifo, 0o644); !errors.Is(err, readlimit.ErrNotRegular) {
		t.Fatalf("FIFO: %v", err)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
}

// TestWriteFrom: the reader's bytes, atomically, with the mode asked for.
func TestWriteFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "kept")
	body := strings.Repeat("record ", 100000)
	if err := WriteFrom(path, strings.NewReader(body), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if b, _ := os.ReadFile(path); err != nil || string(b) != body || st.Mode().Perm() != 0o644 {
		t.Fatalf("wrote %d bytes, mode %v (%v)", len(b), st.Mode(), err)
	}
	os.Mkdir(filepath.Join(dir, "d"), 0o700)
	if err := WriteFrom(filepath.Join(dir, "d"), strings.NewReader("x"), 0o644); !errors.Is(err, readlimit.ErrNotRegular) {
		t.Fatalf("directory: %v", err)
	}
}
