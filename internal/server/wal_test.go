package server_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/index"
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

// TestRetentionRemovalSynced: a session deleted under retention has its
// journal's removal made durable (the data directory fsynced after it)
// before the run answers. Before, nothing fsynced the directory after
// the removal; the log's Remove entry was synced first, but a rotation
// between that and the removal retires the segment that holds it, and a
// power loss then brought the deleted journal back beside its tombstone.
func TestRetentionRemovalSynced(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var after atomic.Bool
	var dir string
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		ix, err := index.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		c.Index, c.ReadToken, c.OpenReads = ix, "rt", false
		c.Now = func() time.Time { return now }
		dir = c.Dir
		c.SyncPath = func(p string) error {
			if p == dir {
				if _, err := os.Stat(filepath.Join(dir, "old-1.steps.jsonl")); errors.Is(err, os.ErrNotExist) {
					after.Store(true)
				}
			}
			return durable.SyncPath(p)
		}
	})
	f.record(t, f.ts.Client(), "old-1", 2, true)
	now = now.Add(40 * 24 * time.Hour)
	f.srv.IndexFlush()
	if code, b := call(t, "PUT", f.ts.URL+"/v1/retention", "rt", `{"keepDays": 30}`); code != 200 {
		t.Fatalf("policy: %d %s", code, b)
	}
	after.Store(false)
	if code, b := call(t, "POST", f.ts.URL+"/v1/retention/run", "rt", `{"reason": "kept 30 days"}`); code != 200 || !strings.Contains(string(b), "old-1") {
		t.Fatalf("run: %d %s", code, b)
	}
	if !after.Load() {
		t.Fatal("the data directory was not fsynced after the journal's removal")
	}
}
