package durable

import (
	"errors"
	"os"
	"sync"
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
// have closed its own descriptor already.
type Group struct {
	// SyncPath syncs one file or directory; nil is SyncPath (the package
	// function). A test may replace it before the first Sync, e.g. to
	// note what was synced and play a power cut.
	SyncPath func(path string) error

	mu      sync.Mutex
	next    *batch // what the next batch syncs
	running bool   // a leader is syncing
}

type batch struct {
	paths  map[string]struct{}
	afters []func()
	done   chan struct{}
	err    error
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
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.next == nil {
		g.next = &batch{paths: map[string]struct{}{}, done: make(chan struct{})}
	}
	b := g.next
	for _, p := range paths {
		b.paths[p] = struct{}{}
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
		g.next = nil
		g.mu.Unlock()
		if b.err = g.syncAll(b.paths); b.err == nil {
			for _, f := range b.afters {
				f()
			}
		}
		close(b.done)
	}
}

// syncAll syncs the batch's files at once: one goroutine each (a batch
// holds at most one file per session in flight, bounded by the server's
// append slots), so their fsyncs share the file system's commits.
func (g *Group) syncAll(paths map[string]struct{}) error {
	sync1 := g.SyncPath
	if sync1 == nil {
		sync1 = SyncPath
	}
	if len(paths) == 1 {
		for p := range paths {
			return sync1(p)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 0, len(paths))
	var mu sync.Mutex
	for p := range paths {
		wg.Go(func() {
			if err := sync1(p); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SyncPath opens path read-only and fsyncs it (a file's data and size,
// or a directory's entries).
func SyncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}
