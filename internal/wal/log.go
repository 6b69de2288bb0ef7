package wal

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/logbook-project/logbook/internal/durable"
)

// Subdir is the segments' directory under the data directory.
const Subdir = "wal"

// DefaultMaxSize is the size past which a segment asks to be rotated
// (Full) before its second is up.
const DefaultMaxSize = 16 << 20

// Options are a Log's I/O.
type Options struct {
	// SyncPath fsyncs a file or directory by its path; nil syncs by the
	// descriptor a Log holds, or durable.SyncPath. A test replaces it to
	// note what was synced and play a power cut: every fsync a Log makes
	// (its segments, the journals it retires, the directories) goes
	// through it.
	SyncPath func(path string) error
	// MaxSize: 0 is DefaultMaxSize.
	MaxSize int64
	// MaxKept bounds the segments kept for replay while the process
	// runs (a fsync of their journals failed), with the segment in use
	// (which grows when no rotation can make its successor): past it
	// every Append fails (ErrBacklog). 0 is DefaultMaxKept.
	MaxKept int64
}

// DefaultMaxKept: 64 full segments.
const DefaultMaxKept = 64 * DefaultMaxSize

// ErrBacklog is Append's error once the segments kept for replay pass
// MaxKept: a fsync of their journals failed, so they stay until a
// restart replays them (writing their bytes again), and the log does
// not grow without bound meanwhile.
var ErrBacklog = errors.New("wal: the segments kept for replay (a fsync of their journals failed) passed their bound: restart the server to replay them")

// Log appends entries to the newest segment of DIR/wal. It is safe for
// concurrent use.
type Log struct {
	dir, wdir string
	opts      Options
	full      chan struct{}

	// syncMu orders Sync and the switch to a new segment: a Sync
	// syncs the segment in use, and a switch syncs the old one
	// before any Sync can pass it, so every entry appended before a
	// Sync began is on disk when it returns.
	syncMu sync.Mutex
	rotMu  sync.Mutex // one Rotate at a time

	mu     sync.Mutex
	cur    *segment
	next   uint64 // the next segment's number
	failed error  // a write that could not be taken back: every Append fails
	kept   int64  // bytes of the segments kept for replay (keep)
	// keptNames: the files the segments kept for replay wrote (keep).
	// A segment that removes one of them is kept too (pinned): replay
	// would otherwise make the file again from the kept segment's
	// writes, with no Remove after them.
	keptNames map[string]struct{}
	owed      []owed // under syncMu
	buf       []byte // Append's header, reused under mu
	lockf     *os.File
}

type segment struct {
	path  string
	f     *os.File
	size  int64
	dirty map[string]struct{} // the files its entries wrote to
	// removed: the files its Remove entries removed.
	removed map[string]struct{}
	// tainted: a sync of the segment failed, so it may have lost pages
	// (Linux drops them) and its later entries may sit after a hole that
	// replay stops at. Its files are then synced themselves.
	tainted bool
}

// ErrInUse is Open's and Replay's error when another process has the
// data directory's log open: a second server on the same directory
// would replay, and remove, the segments the first is appending to.
var ErrInUse = errors.New("the write-ahead log is in use by another process (a second logbook-server on the same data directory?)")

// lockName is the file of DIR/wal whose lock (flock) the process that
// has the log open holds.
const lockName = "lock"

// Open takes DIR/wal's lock, replays what a crash left there (Replay),
// and starts a new segment; it returns the Log that appends to it, which
// holds the lock until Close.
func Open(dir string, opts Options) (*Log, Stats, error) {
	if opts.MaxSize == 0 {
		opts.MaxSize = DefaultMaxSize
	}
	l := &Log{dir: dir, wdir: filepath.Join(dir, Subdir), opts: opts, full: make(chan struct{}, 1)}
	st, err := l.replay()
	if err != nil {
		l.unlock()
		return nil, st, err
	}
	// DIR/wal's name made durable before a segment in it is, or a power
	// loss could take the directory and every entry acknowledged in it
	// (at every Open: one made by a process killed before this fsync
	// looks the same).
	if err := l.syncPath(dir, nil); err != nil {
		l.unlock()
		return nil, st, err
	}
	l.next = 1
	if st.last > 0 {
		l.next = st.last + 1 // numbers go up, even past segments whose removal a crash took
	}
	if l.cur, err = l.create(); err != nil {
		l.unlock()
		return nil, st, err
	}
	return l, st, nil
}

// lock takes DIR/wal's lock, making the directory.
func (l *Log) lock() error {
	if err := os.MkdirAll(l.wdir, 0o700); err != nil {
		return err
	}
	f, err := durable.OpenWrite(filepath.Join(l.wdir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	ok, err := tryLock(f)
	if err != nil || !ok {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w", l.wdir, ErrInUse)
		}
		return err
	}
	l.lockf = f
	return nil
}

// unlock releases the lock (closing its file).
func (l *Log) unlock() {
	if l.lockf != nil {
		l.lockf.Close()
		l.lockf = nil
	}
}

// create makes the next segment, its name durable before any entry goes
// in: an entry acknowledged in a segment whose name a power loss took
// would be lost.
func (l *Log) create() (*segment, error) {
	p := filepath.Join(l.wdir, fmt.Sprintf("%020d.wal", l.next))
	f, err := durable.OpenNoFollow(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := l.syncPath(l.wdir, nil); err != nil {
		f.Close()
		os.Remove(p)
		return nil, err
	}
	l.next++
	return &segment{path: p, f: f, dirty: map[string]struct{}{}, removed: map[string]struct{}{}}, nil
}

// Append logs that data was written at off in the file name of the data
// directory. Call it after the write, and before the write's fsync is
// waited for (Sync).
func (l *Log) Append(name string, off int64, data []byte) error {
	return l.add(Entry{Kind: Write, Name: name, Off: off, Data: data})
}

// Remove logs that the file name was removed from the data directory.
func (l *Log) Remove(name string) error {
	return l.add(Entry{Kind: Remove, Name: name})
}

// inline: data up to this long is copied after the header, for one
// write; longer data is written by a second one.
const inline = 64 << 10

func (l *Log) add(e Entry) error {
	if err := e.check(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return l.failed
	}
	s := l.cur
	// A segment that cannot be retired (its successor cannot be made)
	// grows: it counts against the same bound.
	if bound := cmp.Or(l.opts.MaxKept, DefaultMaxKept); l.kept+s.size > bound {
		return fmt.Errorf("%w (%d bytes kept, %d in the segment in use, the bound is %d)", ErrBacklog, l.kept, s.size, bound)
	}
	head := appendHead(l.buf[:0], &e, len(e.Data))
	hl := len(head)
	if len(e.Data) <= inline {
		head = append(head, e.Data...)
	}
	seal(head[:hl], e.Data)
	l.buf = head
	if cap(l.buf) > 4*inline {
		l.buf = nil // a large entry's buffer is not kept
	}
	n, err := s.f.Write(head)
	if err == nil && len(head) == hl {
		var m int
		m, err = s.f.Write(e.Data)
		n += m
	}
	if err != nil {
		// Take back what was written: an entry cut short in the middle
		// of a segment would end it for replay, and hide the entries
		// after it.
		if n > 0 {
			if terr := s.f.Truncate(s.size); terr != nil {
				l.failed = fmt.Errorf("wal: %s: an entry cut short could not be taken back: %w", s.path, terr)
			}
		}
		return fmt.Errorf("wal: %w", err)
	}
	s.size += int64(n)
	s.dirty[e.Name] = struct{}{}
	if e.Kind == Remove {
		s.removed[e.Name] = struct{}{}
	}
	if s.size >= l.opts.MaxSize {
		select {
		case l.full <- struct{}{}:
		default:
		}
	}
	return nil
}

// Full is signalled when the segment in use has passed MaxSize: the
// caller's rotation loop rotates then, besides its timer.
func (l *Log) Full() <-chan struct{} { return l.full }

// Sync returns once every entry appended before the call is on disk: in
// the segment in use, fsynced, or (after a failed fsync of the segment)
// in the files it wrote, fsynced themselves.
func (l *Log) Sync() error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if err := l.payOwed(); err != nil {
		return err
	}
	l.mu.Lock()
	s := l.cur
	tainted := s.tainted
	var names []string
	if tainted {
		names = s.names()
	}
	l.mu.Unlock()
	if tainted {
		return l.syncFiles(names)
	}
	if err := l.syncPath(s.path, s.f); err != nil {
		l.mu.Lock()
		s.tainted = true
		l.mu.Unlock()
		return err
	}
	return nil
}

// owed is a retired segment whose entries are not on disk in it (its
// fsync failed): they are once its files are, and every Sync first
// tries that.
type owed struct {
	path  string
	names []string
	size  int64
	// pinned: it removes a file a segment kept for replay wrote (pins).
	pinned bool
	// failed: a fsync of its files failed; one that passes after is no
	// proof (Linux marks the pages it could not write clean), so the
	// segment is kept for replay once paid.
	failed bool
}

// payOwed syncs the files of the segments owed, removing each once they
// are; syncMu is held.
func (l *Log) payOwed() error {
	for len(l.owed) > 0 {
		o := l.owed[0]
		if err := l.syncFiles(o.names); err != nil {
			l.owed[0].failed = true
			return err
		}
		if o.failed || o.pinned {
			l.keep(o.size, o.names)
		} else {
			os.Remove(o.path)
		}
		l.owed = l.owed[1:]
	}
	return nil
}

// keep counts a segment of size bytes left on disk for replay: the
// fsync of its journals failed, and a later fsync that passes does not
// prove their bytes are on disk (Linux marks the pages it could not
// write clean, keeping them in the cache). Replay, at the next start,
// writes them again. Past MaxKept every Append fails (ErrBacklog).
func (l *Log) keep(size int64, names []string) {
	l.mu.Lock()
	l.kept += size
	if l.keptNames == nil {
		l.keptNames = map[string]struct{}{}
	}
	for _, n := range names {
		l.keptNames[n] = struct{}{}
	}
	if bound := cmp.Or(l.opts.MaxKept, DefaultMaxKept); l.kept > bound && l.failed == nil {
		l.failed = fmt.Errorf("%w (%d bytes kept, the bound is %d)", ErrBacklog, l.kept, bound)
	}
	l.mu.Unlock()
}

// pins reports whether s removes a file that a segment kept for replay,
// or owed (it may yet be kept), wrote: s must then be kept as well, or
// replay would make the removed file again from the older segment's
// writes. syncMu and l.mu are held.
func (l *Log) pins(s *segment) bool {
	for n := range s.removed {
		if _, ok := l.keptNames[n]; ok {
			return true
		}
		for _, o := range l.owed {
			if slices.Contains(o.names, n) {
				return true
			}
		}
	}
	return false
}

// names lists the files s wrote; l.mu is held.
func (s *segment) names() []string {
	out := make([]string, 0, len(s.dirty))
	for n := range s.dirty {
		out = append(out, n)
	}
	return out
}

// syncFiles fsyncs the named files of the data directory (a file
// removed since is skipped: a Remove entry follows its writes) and the
// directory itself, for the names of the files made.
func (l *Log) syncFiles(names []string) error {
	var errs []error
	for _, n := range names {
		if err := l.syncPath(filepath.Join(l.dir, n), nil); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return l.syncPath(l.dir, nil)
}

// Rotate retires the segment in use, when it holds anything: appends go
// to a new segment, the old one is fsynced (so that a Sync need no
// longer look at it), then the files its entries wrote are fsynced, and
// the old segment is removed. Killed at any point, it leaves the old
// segment for Replay. The server calls it about once a second, and when
// Full.
func (l *Log) Rotate() error {
	l.rotMu.Lock()
	defer l.rotMu.Unlock()
	l.mu.Lock()
	empty := l.cur.size == 0
	l.mu.Unlock()
	if empty {
		return nil
	}
	next, err := l.create()
	if err != nil {
		return err
	}
	return l.retire(next)
}

// retire puts next in use and retires the segment it replaces.
func (l *Log) retire(next *segment) error {
	l.syncMu.Lock()
	l.mu.Lock()
	old := l.cur
	l.cur = next
	names := old.names()
	tainted, size := old.tainted, old.size
	pinned := l.pins(old)
	l.mu.Unlock()
	if tainted || l.syncPath(old.path, old.f) != nil {
		// Not on disk in the segment: only once its files are, and
		// every Sync waits for that.
		l.owed = append(l.owed, owed{path: old.path, names: names, size: size, pinned: pinned})
		err := l.payOwed()
		l.syncMu.Unlock()
		old.f.Close()
		return err
	}
	// On disk in the segment: no Sync need look at it again.
	l.syncMu.Unlock()
	err := l.syncFiles(names)
	old.f.Close()
	if err != nil {
		l.keep(size, names)
		return err // the segment stays, for Replay
	}
	if pinned {
		l.keep(size, names)
		return nil
	}
	return os.Remove(old.path)
}

// Close retires the segment in use (its files fsynced, the segment
// removed), so that a server stopped cleanly leaves no segment to
// replay. No Append may follow.
func (l *Log) Close() error {
	l.rotMu.Lock()
	defer l.rotMu.Unlock()
	l.syncMu.Lock()
	l.mu.Lock()
	s := l.cur
	names := s.names()
	pinned := l.pins(s)
	l.failed = errors.New("wal: closed")
	l.mu.Unlock()
	defer l.unlock() // whatever happens: a segment left is for Replay
	defer l.syncMu.Unlock()
	if err := l.payOwed(); err != nil {
		s.f.Close()
		return err
	}
	if err := l.syncFiles(names); err != nil {
		s.f.Close()
		return err
	}
	s.f.Close()
	if pinned {
		return nil // for Replay, after the segment it pins
	}
	return os.Remove(s.path)
}

// syncPath fsyncs p, by f when there is one and no test's SyncPath.
func (l *Log) syncPath(p string, f *os.File) error {
	if l.opts.SyncPath != nil {
		return l.opts.SyncPath(p)
	}
	if f != nil {
		return f.Sync()
	}
	return durable.SyncPath(p)
}
