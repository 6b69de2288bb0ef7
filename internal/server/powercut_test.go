package server_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/wal"
)

// disk plays the page cache for the power-cut test. It sees every fsync
// the server's group commit makes: a journal keeps, after the cut, the
// length it had when its last fsync began (what was written after may not
// have reached the disk), and a file whose name no fsync of its directory
// saw is gone. A checkpoint log (never synced: the steps are what must
// survive) is either cut to what was synced or kept whole, as if the
// kernel had written it back, one or the other at random: both must be
// survived. Once the power is cut, every fsync fails (EIO).
type disk struct {
	mu     sync.Mutex
	synced map[string]int64
	names  map[string]bool
	cut    bool
	acked  map[string]int64 // session → the largest size an answer acknowledged
	n      int
	// inRotation, when > 0: once 300 events are acknowledged, the power
	// goes at the inRotation-th fsync of a journal (with group commit
	// only a rotation of the write-ahead log fsyncs journals: after
	// the old segment's fsync, among its journals' fsyncs).
	inRotation int
}

var errPowerCut = errors.New("EIO: power cut")

func (d *disk) sync(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	var names []string
	if st.IsDir() {
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		for _, e := range ents {
			names = append(names, filepath.Join(p, e.Name()))
		}
	}
	d.mu.Lock()
	if d.inRotation > 0 && d.n >= 300 && strings.HasSuffix(p, ".steps.jsonl") {
		if d.inRotation--; d.inRotation == 0 {
			d.cut = true
		}
	}
	cut := d.cut
	d.mu.Unlock()
	if cut {
		return errPowerCut
	}
	if err := durable.SyncPath(p); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return errPowerCut // the power went while it synced: not acknowledged
	}
	for _, n := range names {
		d.names[n] = true
	}
	if !st.IsDir() {
		d.synced[p] = max(d.synced[p], st.Size())
	}
	return nil
}

// ack notes an answered event, unless the power is cut already.
func (d *disk) ack(session string, size int64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return false
	}
	d.acked[session] = max(d.acked[session], size)
	d.n++
	return true
}

// powerCut leaves every journal and checkpoint log as a power loss
// would: cut to its synced length, or gone when its name was never
// synced. The server must have stopped.
func (d *disk) powerCut(t *testing.T, dir string) (cut, gone int) {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	segs, _ := filepath.Glob(filepath.Join(dir, wal.Subdir, "*.wal"))
	for _, f := range append(files, segs...) {
		if !strings.HasSuffix(f, ".steps.jsonl") && !strings.HasSuffix(f, ".checkpoints") && !strings.HasSuffix(f, ".wal") {
			continue
		}
		if !d.names[f] {
			os.Remove(f)
			gone++
			continue
		}
		if strings.HasSuffix(f, ".checkpoints") && rand.IntN(2) == 0 {
			continue // written back whole
		}
		st, _ := os.Stat(f)
		if n := d.synced[f]; st.Size() > n {
			if err := os.Truncate(f, n); err != nil {
				t.Fatal(err)
			}
			cut++
		}
	}
	return cut, gone
}

// TestPowerCut: 8 clients record sessions (some ended, some resumed and
// ended again) with group commit on; the power is cut while they run.
// Every file loses what was not fsynced. A server started on what is left
// has every acknowledged event: each session's journal holds at least the
// steps an answer counted, every checkpoint the session's log kept agrees
// with its chain (no step was signed and then lost, so none can be signed
// twice), and each sealed record verifies at level server.
//
// With --fsync background the same cut may take acknowledged events (those
// answered before their batch's fsync ended), and nothing else changes:
// every checkpoint kept agrees with the chain left, the server signs no
// size twice over different steps, and sealed records verify.
func TestPowerCut(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{server.FsyncGroup, server.FsyncBackground} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			powerCut(t, mode, 0)
		})
	}
	// The power goes inside a rotation of the write-ahead log: the old
	// segment fsynced, none, some or all of its journals not (while new
	// sessions are being made).
	t.Run("group-in-rotation", func(t *testing.T) {
		t.Parallel()
		powerCut(t, server.FsyncGroup, 1+rand.IntN(4))
	})
}

func powerCut(t *testing.T, mode string, inRotation int) {
	d := &disk{synced: map[string]int64{}, names: map[string]bool{}, acked: map[string]int64{}, inRotation: inRotation}
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.SyncPath, c.Fsync = d.sync, mode })
	var wg sync.WaitGroup
	for c := 0; c < 8; c++ {
		wg.Go(func() {
			cl := &http.Client{Timeout: 20 * time.Second}
			send := func(id string, body []byte) bool {
				resp, err := cl.Post(f.ts.URL+"/v1/hooks/claude-code", "application/json", bytes.NewReader(body))
				if err != nil {
					return false
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					return false
				}
				size, err := strconv.ParseInt(resp.Header.Get("X-Logbook-Size"), 10, 64)
				if err != nil {
					t.Errorf("answer without a size: %v", err)
					return false
				}
				return d.ack(id, size)
			}
			for k := 0; ; k++ {
				id := fmt.Sprintf("pc-%d-%d", c, k)
				ok := send(id, event(id, "SessionStart", 0))
				for i := 0; i < 10 && ok; i++ {
					ok = send(id, event(id, []string{"PreToolUse", "PostToolUse"}[i%2], i/2))
				}
				ok = ok && send(id, event(id, "SessionEnd", 0))
				if ok && k%3 == 0 { // resumed, then ended again
					ok = send(id, event(id, "SessionStart", 0)) &&
						send(id, event(id, "PreToolUse", 9)) && send(id, event(id, "SessionEnd", 0))
				}
				if !ok {
					return
				}
			}
		})
	}
	// The power goes once a few hundred events are acknowledged, and
	// the write-ahead log has retired a segment or more (its journals
	// fsynced, the segment removed: wal.go's walEvery), at a random
	// moment of its second.
	start, after := time.Now(), time.Duration(1000+rand.IntN(1500))*time.Millisecond
	for deadline := start.Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		d.mu.Lock()
		n := d.n
		if inRotation == 0 && n >= 300 && time.Since(start) > after || time.Now().After(deadline) {
			d.cut = true
		}
		cut := d.cut
		d.mu.Unlock()
		if cut {
			break
		}
	}
	f.ts.Close()
	wg.Wait()
	f.srv.Close()
	cut, gone := d.powerCut(t, f.opts.Dir)
	if d.n == 0 {
		t.Fatal("no event acknowledged before the cut")
	}

	g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir = f.opts.Dir })
	g.pub = f.pub
	if _, err := g.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	// Every session takes one more event: none may be signed at a size
	// the session had signed before with another step.
	for id := range d.acked {
		if code, b := post(t, http.DefaultClient, g.ts.URL+"/v1/hooks/claude-code", event(id, "PreToolUse", 99)); code != 200 {
			t.Fatalf("%s after the cut: %d %s", id, code, b)
		}
	}
	sealed, lost := 0, 0
	for id, size := range d.acked {
		// The record sealed last (if any) verifies with its checkpoint
		// (resealed at the event above when it was sealed).
		if rec, err := os.ReadFile(filepath.Join(f.opts.Dir, id+".record.json")); err == nil {
			cp, _ := os.ReadFile(filepath.Join(f.opts.Dir, id+".record.checkpoint"))
			if o := g.verify(rec, cp); !o.Result.OK || o.Level != checkpoint.LevelServer {
				t.Errorf("%s: record after the cut: %+v", id, o.Result)
			}
			sealed++
		}
		// The journal as it is now, against every checkpoint kept.
		cps := entries(t, checkpoint.LogPath(f.opts.Dir, id))
		rec := sealDir(t, f.opts.Dir, id, f.key)
		o := g.verify(rec, cps...)
		if !o.Result.OK {
			t.Errorf("%s: journal against its %d checkpoints after the cut: %+v", id, len(cps), o.Result)
			continue
		}
		// The seal may add a note: the journal had at least size steps.
		if o.Result.StepCount < size {
			if mode == server.FsyncGroup {
				t.Errorf("%s: %d steps after the cut, %d were acknowledged", id, o.Result.StepCount, size)
			}
			lost++
		}
	}
	t.Logf("%s (in rotation: %d): power cut after %d acknowledged events in %d sessions (%d sealed); %d files cut short, %d lost their names; %d sessions lost acknowledged steps",
		mode, inRotation, d.n, len(d.acked), sealed, cut, gone, lost)
}

// entries splits a checkpoint log into its notes.
func entries(t *testing.T, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		i := bytes.Index(b, []byte("\n\n"))
		if i < 0 {
			return out
		}
		j := bytes.Index(b[i+2:], []byte("\n\n"))
		if j < 0 {
			return out
		}
		end := i + 2 + j + 1
		out = append(out, b[:end])
		b = b[end+1:]
	}
}

// TestSyncFailed: an fsync that fails is the answer's SYNC_FAILED (500),
// for the hook and for the checkpoint it would serve; once the disk
// syncs again, so does the server. Fsync off makes no fsync at all.
func TestSyncFailed(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	var calls atomic.Int64
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.SyncPath = func(p string) error {
			calls.Add(1)
			if failing.Load() {
				return errors.New("EIO")
			}
			return durable.SyncPath(p)
		}
	})
	hook := f.ts.URL + "/v1/hooks/claude-code"
	if code, b := post(t, http.DefaultClient, hook, event("sf-1", "PreToolUse", 1)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	failing.Store(true)
	code, b := post(t, http.DefaultClient, hook, event("sf-1", "PostToolUse", 1))
	if e := decodeErr(t, b); code != 500 || e.Error != "SYNC_FAILED" {
		t.Fatalf("%d %s", code, b)
	}
	code, cb := get(t, f.ts.URL+"/v1/sessions/sf-1/checkpoint")
	if e := decodeErr(t, string(cb)); code != 500 || e.Error != "SYNC_FAILED" {
		t.Fatalf("checkpoint: %d %s", code, cb)
	}
	failing.Store(false)
	if code, b := post(t, http.DefaultClient, hook, event("sf-1", "PreToolUse", 2)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	g := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Fsync = server.FsyncOff
		c.SyncPath = func(string) error { t.Error("fsync with --fsync off"); return nil }
	})
	if code, b := post(t, http.DefaultClient, g.ts.URL+"/v1/hooks/claude-code", event("sf-2", "PreToolUse", 1)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	if _, err := server.New(server.Config{Dir: t.TempDir(), Origin: "x", Key: f.key, Fsync: "sometimes"}); err == nil {
		t.Fatal("fsync mode sometimes accepted")
	}
}
