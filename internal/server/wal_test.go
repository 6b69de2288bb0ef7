package server_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/wal"
)

// TestWALInUse: a second server started on the data directory of one
// that runs does not start (the write-ahead log is in use), and says so.
func TestWALInUse(t *testing.T) {
	f := newServer(t, nil)
	_, err := server.New(f.opts)
	if !errors.Is(err, wal.ErrInUse) || !strings.Contains(err.Error(), "write-ahead log") {
		t.Fatalf("second server: %v", err)
	}
}

// TestWALCorruptStopsStart: a segment left in DATA/wal whose entry
// checks but names a file that is not a session's journal (the server's
// key) stops the start with ErrCorrupt, and the key is left as it was.
func TestWALCorruptStopsStart(t *testing.T) {
	f := newServer(t, nil)
	f.ts.Close()
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	// A segment made by hand: an entry that checks, naming "key".
	seg := rawEntry(wal.Write, "key", 0, []byte("not a key"))
	if err := os.WriteFile(filepath.Join(f.opts.Dir, wal.Subdir, "00000000000000000100.wal"), seg, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := server.New(f.opts)
	if !errors.Is(err, wal.ErrCorrupt) || !strings.Contains(err.Error(), "00000000000000000100.wal") {
		t.Fatalf("start: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "key")); err == nil {
		t.Fatal("a file key made")
	}
}

// rawEntry encodes an entry as a segment holds it (wal's entry.go),
// without wal.Encode's checks.
func rawEntry(kind wal.Kind, name string, off uint64, data []byte) []byte {
	p := []byte{byte(kind)}
	p = binary.LittleEndian.AppendUint16(p, uint16(len(name)))
	p = append(p, name...)
	p = binary.LittleEndian.AppendUint64(p, off)
	p = append(p, data...)
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(p)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)))
	return append(b, p...)
}
