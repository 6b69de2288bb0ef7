package durable

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGroupBatches: 64 writers each append to one of 4 files and ask for
// a sync at once. Every writer returns only after a sync of its file that
// began after it asked, and the syncs are batched: far fewer than 64.
func TestGroupBatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var g Group
	var mu sync.Mutex
	var calls atomic.Int64
	synced := map[string]int64{} // path → the size its last sync began with
	g.SyncPath = func(p string) error {
		calls.Add(1)
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		time.Sleep(2 * time.Millisecond) // an fsync takes a while
		if err := SyncPath(p); err != nil {
			return err
		}
		mu.Lock()
		synced[p] = max(synced[p], st.Size())
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	var fileMu [4]sync.Mutex
	for i := range 64 {
		wg.Go(func() {
			p := filepath.Join(dir, string(rune('a'+i%4)))
			fileMu[i%4].Lock()
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Error(err)
				fileMu[i%4].Unlock()
				return
			}
			f.Write([]byte("0123456789"))
			st, _ := f.Stat()
			f.Close()
			fileMu[i%4].Unlock()
			if err := g.Sync(p); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got := synced[p]
			mu.Unlock()
			if got < st.Size() {
				t.Errorf("writer %d answered with %d bytes of %s synced, it wrote up to %d", i, got, p, st.Size())
			}
		})
	}
	wg.Wait()
	if n := calls.Load(); n >= 64 || n == 0 {
		t.Fatalf("%d syncs for 64 writers: not batched", n)
	}
	t.Logf("%d syncs for 64 writers", calls.Load())
}

// TestGroupError: a failed sync is every waiter's error in that batch,
// and the next batch starts clean.
func TestGroupError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	boom := errors.New("EIO")
	fail := true
	g := Group{SyncPath: func(p string) error {
		if fail {
			return boom
		}
		return SyncPath(p)
	}}
	if err := g.Sync(dir); !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
	fail = false
	if err := g.Sync(dir); err != nil {
		t.Fatal(err)
	}
	if err := g.Sync(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing file synced")
	}
}

// TestGroupAfterOrder: the afters of a batch run in the order of their
// Adds, once its sync succeeded, before any of its waiters returns; a
// failed batch runs none.
func TestGroupAfterOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fail := false
	g := Group{SyncPath: func(p string) error {
		if fail {
			return errors.New("EIO")
		}
		return SyncPath(p)
	}}
	var got []int
	var tickets []Ticket
	for i := range 5 {
		tickets = append(tickets, g.Add(func() { got = append(got, i) }, dir))
	}
	if err := tickets[4].Wait(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0] != 0 || got[4] != 4 {
		t.Fatalf("afters ran as %v", got)
	}
	for _, tk := range tickets {
		if err := tk.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	fail = true
	ran := false
	if err := g.Add(func() { ran = true }, dir).Wait(); err == nil || ran {
		t.Fatalf("failed batch: err %v, after ran %v", err, ran)
	}
	if err := (Ticket{}).Wait(); err != nil {
		t.Fatal("the zero ticket waits for nothing")
	}
}

// TestGroupWritten: Written returns while its batch's fsync is still
// running (the batch is synced in the background, with no one waiting),
// waits once a batch not yet synced holds a write older than the window,
// and after a failed background sync returns that error for good.
func TestGroupWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release := make(chan struct{})
	var synced atomic.Int64
	var fail atomic.Bool
	var mu sync.Mutex
	now := time.Unix(1000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	g := Group{Now: clock, SyncPath: func(p string) error {
		<-release
		synced.Add(1)
		if fail.Load() {
			return errors.New("EIO")
		}
		return SyncPath(p)
	}}
	after := make(chan struct{})
	if err := g.Add(func() { close(after) }, dir).Written(50 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if synced.Load() != 0 {
		t.Fatal("Written waited for the fsync")
	}
	// The clock passes the window: the next writer waits for the stalled batch.
	advance(51 * time.Millisecond)
	waited := make(chan error, 1)
	go func() { waited <- g.Add(nil, dir).Written(50 * time.Millisecond) }()
	select {
	case err := <-waited:
		t.Fatalf("Written returned (%v) while a write older than the window was not synced", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release) // the disk answers
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	<-after // the background leader ran the first batch's after, with no one waiting on it
	if synced.Load() < 1 {
		t.Fatal("nothing synced")
	}
	// A failed sync nobody waited for is returned to every later writer.
	fail.Store(true)
	if err := g.Add(nil, dir).Written(time.Hour); err != nil {
		t.Fatal(err)
	}
	_ = g.Sync() // returns once the failed batch is over
	for range 2 {
		if err := g.Add(nil, dir).Written(time.Hour); err == nil {
			t.Fatal("Written after a failed sync returned nil")
		}
	}
	if err := (Ticket{}).Written(0); err != nil {
		t.Fatal("the zero ticket waits for nothing")
	}
}

// TestGroupKeptFile: a file given to AddFile is synced by its own
// descriptor, with no open of its path; once its writer closed it, by
// its path. Not parallel: it replaces syncPath.
func TestGroupKeptFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var opened []string
	syncPath = func(p string) error { opened = append(opened, p); return SyncPath(p) }
	defer func() { syncPath = SyncPath }()
	var g Group
	for range 3 {
		f.WriteString("x\n")
		if err := g.AddFile(nil, f).Wait(); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddFile(nil, f, dir).Wait(); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || opened[0] != dir {
		t.Fatalf("paths opened for 4 syncs of a kept file and one of its directory: %q, want only the directory", opened)
	}
	f.Close()
	opened = nil
	if err := g.AddFile(nil, f).Wait(); err != nil {
		t.Fatal(err)
	}
	if len(opened) != 1 || opened[0] != p {
		t.Fatalf("a closed file's sync opened %q, want its path", opened)
	}
	// A test's SyncPath sees every file by its name.
	var seen []string
	g2 := Group{SyncPath: func(p string) error { seen = append(seen, p); return nil }}
	g2.AddFile(nil, f).Wait()
	if len(seen) != 1 || seen[0] != p {
		t.Fatalf("SyncPath saw %q, want %q", seen, p)
	}
	// One file added twice to a batch is synced once; two files open at
	// one path (the writer opened it again) are both synced.
	a, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var n atomic.Int64 // the two are synced at once
	g3 := Group{SyncPath: func(string) error { n.Add(1); return nil }}
	g3.AddFile(nil, a)
	g3.AddFile(nil, a)
	if err := g3.AddFile(nil, b).Wait(); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Fatalf("a batch of one file added twice and another at its path synced %d times, want 2", n.Load())
	}
}

// countSyncer counts its syncs.
type countSyncer struct{ n atomic.Int64 }

func (c *countSyncer) Sync() error { c.n.Add(1); return nil }

// TestGroupAddSync: a Syncer added by many writers of one batch is
// synced once, by its own Sync even where SyncPath is set, beside the
// batch's paths; its afters run once it is.
func TestGroupAddSync(t *testing.T) {
	dir := t.TempDir()
	var paths atomic.Int64
	g := &Group{SyncPath: func(string) error { paths.Add(1); return nil }}
	s := &countSyncer{}
	ran := 0
	t1 := g.AddSync(func() { ran++ }, s)
	t2 := g.AddSync(func() { ran++ }, s, dir)
	if err := errors.Join(t1.Wait(), t2.Wait()); err != nil {
		t.Fatal(err)
	}
	if s.n.Load() != 1 || paths.Load() != 1 || ran != 2 {
		t.Fatalf("syncs %d, paths %d, afters %d", s.n.Load(), paths.Load(), ran)
	}
	if err := g.AddSync(nil, s).Wait(); err != nil || s.n.Load() != 2 {
		t.Fatalf("second batch: %v, %d syncs", err, s.n.Load())
	}
}

// markSyncer notes, at the start of each Sync, how many writes had been
// made: every write counted before a Sync began is covered by it.
type markSyncer struct {
	written *atomic.Int64
	mark    atomic.Int64
}

func (m *markSyncer) Sync() error {
	w := m.written.Load()
	for {
		old := m.mark.Load()
		if w <= old || m.mark.CompareAndSwap(old, w) {
			return nil
		}
	}
}

// TestGroupAddSyncRace: a writer's ticket from AddSync returns only once
// a Sync of the Syncer began after its write, however a leader already
// running takes batches meanwhile. AddSync put the Syncer in the batch
// under a second lock, after Add had released the first: a leader could
// take the batch in between and sync it without the Syncer, and the
// writer's Wait returned with its write in no fsynced file (the server's
// event acknowledged with its step only in the page cache).
func TestGroupAddSyncRace(t *testing.T) {
	var written atomic.Int64
	s := &markSyncer{written: &written}
	g := &Group{}
	var wg sync.WaitGroup
	var bad atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 3000 {
				w := written.Add(1)
				if err := g.AddSync(nil, s).Wait(); err != nil {
					t.Error(err)
					return
				}
				if s.mark.Load() < w {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d of %d writes answered with no Sync of the Syncer after them", n, written.Load())
	}
}
