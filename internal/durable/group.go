package durable

import (
	"errors"
	"os"
	"slices"
	"sync"
	"time"
)

// Group commits fsyncs in batches (group commit): many writers, each of
// which has written its bytes and must not answer before they are on
// disk, ask Sync for the files they wrote. The first asker becomes the
// batch's leader and syncs every file asked for so far, once each; those
// who ask while that batch is syncing go into the next batch, synced as
// soon as the first ends. Under load one fsync of a file serves every
// append made to it meanwhile, and the files of a batch are synced
// together (the file system merges their journal commits), so the cost
// per event falls as the load rises, and no writer waits longer than two
// batches.
//
// Files are named by path and opened read-only for the sync: an fsync of
// any descriptor of a file writes all of its data, so the writer may
// have closed its own descriptor already. A writer that keeps its file
// open passes it (AddFile): the batch fsyncs that descriptor, without an
// open and a close per sync, and opens the path only if the writer
// closed the file meanwhile.
type Group struct {
	// SyncPath syncs one file or directory; nil is SyncPath (the package
	// function). A test may replace it before the first Sync, e.g. to
	// note what was synced and play a power cut; it is then called for
	// the files given to AddFile too, by their names.
	SyncPath func(path string) error
	// Now is the clock of Ticket.Written's window; nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex
	next    *batch // what the next batch syncs
	cur     *batch // the batch being synced, nil when none
	running bool   // a leader is syncing
	failed  error  // the first failed sync's error: Written returns it ever after
}

// syncKey is a file of a batch: by its path (f nil), or by the file its
// writer keeps open. Two files at one path (the writer opened it again
// after the path was moved) are both synced.
type syncKey struct {
	path string
	f    *os.File
}

// Syncer is a file that syncs itself, shared by the writers of many
// batches (the server's write-ahead log, internal/wal): synced by its
// Sync, once per batch that holds it, whatever SyncPath is (it has its
// own).
type Syncer interface{ Sync() error }

type batch struct {
	paths  map[syncKey]struct{}
	logs   []Syncer // AddSync's, each once
	afters []func()
	done   chan struct{}
	err    error
	since  time.Time // when its first path was added
}

// Ticket is a place in a batch, from Add.
type Ticket struct {
	g *Group
	b *batch
}

// Sync returns once every path has been fsynced after the call began
// (the error of a failed fsync of any of them, or of the batch, else nil).
func (g *Group) Sync(paths ...string) error {
	return g.Add(nil, paths...).Wait()
}

// Add puts paths in the next batch without waiting, so that a caller can
// take its place under a lock and wait after releasing it. after, when
// not nil, runs once the batch has synced without error, before any
// waiter returns; the afters of a batch run in the order of their Adds,
// and every batch's before the next one's: what follows a sync (queueing
// a synced checkpoint for the transparency log) keeps the order of the
// writes.
func (g *Group) Add(after func(), paths ...string) Ticket {
	return g.add(after, nil, nil, paths)
}

// AddFile is Add with a file the caller keeps open (f.Name() its path),
// synced by that descriptor. The caller may close f at any time: a
// closed file is synced by its path. f may be nil.
func (g *Group) AddFile(after func(), f *os.File, paths ...string) Ticket {
	return g.add(after, f, nil, paths)
}

// AddSync is Add with a Syncer, synced by its own Sync in the batch.
func (g *Group) AddSync(after func(), s Syncer, paths ...string) Ticket {
	return g.add(after, nil, s, paths)
}

// add puts everything a ticket needs synced in the next batch under one
// hold of g.mu: a leader takes a batch under g.mu, and one that took it
// between two holds would sync it without what the second added (an
// AddSync's Syncer once was: its writer answered with nothing fsynced).
func (g *Group) add(after func(), f *os.File, s Syncer, paths []string) Ticket {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.next == nil {
		g.next = &batch{paths: map[syncKey]struct{}{}, done: make(chan struct{}), since: g.now()}
	}
	b := g.next
	for _, p := range paths {
		b.paths[syncKey{path: p}] = struct{}{}
	}
	if f != nil {
		b.paths[syncKey{f.Name(), f}] = struct{}{}
	}
	if s != nil && !slices.Contains(b.logs, s) {
		b.logs = append(b.logs, s)
	}
	if after != nil {
		b.afters = append(b.afters, after)
	}
	return Ticket{g, b}
}

// Wait returns once the ticket's batch is synced, leading it (and the
// batches after it) when no one else does.
func (t Ticket) Wait() error {
	if t.g == nil {
		return nil
	}
	g := t.g
	g.mu.Lock()
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	if lead {
		g.lead()
	}
	<-t.b.done
	return t.b.err
}

// Written is Wait for a writer that answers once its bytes are written
// (in the page cache) and lets the batch be synced in the background: it
// starts a leader when none runs, and returns at once unless a batch not
// yet synced holds a write older than window, which it waits for. So
// whenever Written returns nil, every write added more than window ago is
// on disk: what a power loss can take of what was answered is bounded by
// window (and by nothing when the disk stalls: the writers wait, as with
// Wait). After any failed sync (of a batch waited for or not), Written
// returns that error for good: the file may have lost pages the writer
// believes written, and the writer must stop answering "recorded".
func (t Ticket) Written(window time.Duration) error {
	if t.g == nil {
		return nil
	}
	g := t.g
	g.mu.Lock()
	if g.failed != nil {
		err := g.failed
		g.mu.Unlock()
		return err
	}
	if !g.running {
		g.running = true
		go g.lead()
	}
	var old *batch
	now := g.now()
	for _, b := range []*batch{g.cur, g.next} { // cur's writes precede next's
		if b != nil && now.Sub(b.since) > window {
			old = b
		}
	}
	g.mu.Unlock()
	if old == nil {
		return nil
	}
	<-old.done
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}

func (g *Group) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// lead syncs batches until none is waiting. Each caller whose batch is
// not yet synced waits on its done; the leader is one of them.
func (g *Group) lead() {
	for {
		g.mu.Lock()
		b := g.next
		if b == nil {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.next, g.cur = nil, b
		g.mu.Unlock()
		if b.err = g.syncAll(b.paths, b.logs); b.err == nil {
			for _, f := range b.afters {
				f()
			}
		}
		g.mu.Lock()
		g.cur = nil
		if b.err != nil && g.failed == nil {
			g.failed = b.err
		}
		g.mu.Unlock()
		close(b.done)
	}
}

// syncAll syncs the batch's files at once: one goroutine each (a batch
// holds at most one file per session in flight, bounded by the server's
// append slots), so their fsyncs share the file system's commits.
func (g *Group) syncAll(paths map[syncKey]struct{}, logs []Syncer) error {
	if len(paths) == 0 && len(logs) == 1 {
		return logs[0].Sync()
	}
	if len(paths) == 1 && len(logs) == 0 {
		for k := range paths {
			return g.sync1(k.path, k.f)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 0, len(paths)+len(logs))
	var mu sync.Mutex
	for _, s := range logs {
		wg.Go(func() {
			if err := s.Sync(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	for k := range paths {
		wg.Go(func() {
			if err := g.sync1(k.path, k.f); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// syncPath is SyncPath, replaced by a test to count the opens.
var syncPath = SyncPath

// sync1 syncs one path of a batch: by the file kept open for it, when
// there is one and it is still open (os.File's own reference count keeps
// its descriptor from being closed, and reused, during the fsync), else
// by opening the path.
func (g *Group) sync1(p string, f *os.File) error {
	if g.SyncPath != nil {
		return g.SyncPath(p)
	}
	if f != nil {
		if err := f.Sync(); !errors.Is(err, os.ErrClosed) {
			return err
		}
	}
	return syncPath(p)
}
