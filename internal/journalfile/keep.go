package journalfile

import (
	"bytes"
	"fmt"
	"os"
)

// A writer that appends to one session again and again (the server, at
// every event of every session it records) keeps its Journal open
// between appends instead of opening it each time: Unlock releases the
// session's lock and keeps both files open; Lock takes the lock again.
// Opening costs a dozen system calls (two opens, each with its checks,
// two closes) and reading the file's end; a kept Journal costs the lock,
// an lstat of each of the two paths, and a read of the line it wrote
// last.
//
// Between Unlock and Lock any other writer may append, cut a torn tail,
// or move the file away. Lock opens the file at the session's path again
// when that is no longer the open one (an append to an unlinked file
// would be lost), and the lock file too (a lock on a removed one would
// not exclude the writers that lock the new one). The next append trusts
// what this Journal knows of the file's end only when the file still
// ends, byte for byte, at the same size, with the line this Journal wrote
// last (last, below); otherwise it reads the end as Open's Journal does.

// maxKeptLine is the longest last line a kept Journal remembers: a longer
// one (a step of a payload of megabytes) is read from the file again.
const maxKeptLine = 64 << 10

// last is the step this Journal wrote last, as a kept Journal's next
// append finds it when no one else wrote since.
type last struct {
	line     []byte // the step's line, without its newline
	end      int64  // the file's size just after it
	seq      int64
	hash, at string
}

// Unlock releases the session's lock; the Journal stays open for Lock.
func (j *Journal) Unlock() error {
	if j.ino == 0 {
		// The open file's identity, for Lock: taken here, once, so
		// that a Journal opened for one append (record-step) pays
		// nothing for it.
		dev, ino, err := fileID(j.f)
		if err != nil {
			return err
		}
		j.dev, j.ino = dev, ino
	}
	if j.lockIno == 0 {
		dev, ino, err := fileID(j.lock)
		if err != nil {
			return err
		}
		j.lockDev, j.lockIno = dev, ino
	}
	return unlock(j.lock)
}

// Lock takes the session's lock again after Unlock, and opens the lock
// file and the file at the session's path again when they are no longer
// the ones this Journal has open. On error the lock is not held.
func (j *Journal) Lock() error {
	if err := j.flockPath(); err != nil {
		return err
	}
	j.tip = nil // Tip reads the file until this Journal writes again
	// Lstat: a symlink at the path is not the file (Open refuses to
	// write through one), even when it leads to it. j.f's name is the
	// session's path (Open, and below), without building it again.
	dev, ino, err := pathID(j.f.Name())
	if err == nil && dev == j.dev && ino == j.ino {
		return nil
	}
	// Moved away or removed: what Open would do now.
	f, err := FS.OpenFile(Path(j.Dir, j.Session), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		unlock(j.lock)
		return err
	}
	j.f.Close()
	j.f, j.dev, j.ino, j.last, j.tip = f, 0, 0, nil, nil
	return nil
}

// flockPath takes the lock on the session's lock file, opening it again
// when the one this Journal has open was removed or replaced: other
// writers lock the file at the path, and a lock on another would not
// exclude them.
func (j *Journal) flockPath() error {
	if err := flock(j.lock); err != nil {
		return err
	}
	name := j.lock.Name() // the lock file's path, as Open made it
	if dev, ino, err := pathID(name); err == nil && dev == j.lockDev && ino == j.lockIno {
		return nil
	}
	unlock(j.lock)
	lock, err := FS.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := flock(lock); err != nil {
		lock.Close()
		return fmt.Errorf("lock %s: %w", name, err)
	}
	j.lock.Close()
	j.lock, j.lockDev, j.lockIno = lock, 0, 0
	return nil
}

// unchanged returns what this Journal wrote last when the file (of size
// size) still ends with it: no one has written since.
func (j *Journal) unchanged(size int64) (*last, bool) {
	l := j.last
	if l == nil || size != l.end {
		return nil, false
	}
	// The line and the newline before it (the previous line's end, so
	// that the bytes are a whole line, not the end of a longer one).
	n := int64(len(l.line)) + 2
	if n > size {
		return nil, false
	}
	buf := make([]byte, n)
	if _, err := j.f.ReadAt(buf, size-n); err != nil {
		return nil, false
	}
	if buf[0] != '\n' || buf[n-1] != '\n' || !bytes.Equal(buf[1:n-1], l.line) {
		return nil, false
	}
	return l, true
}

// File is the file this Journal appends to (its name the session's
// path), for a caller that fsyncs it after releasing the lock (the
// server's group commit): the file may be closed by then (Close, or Lock
// finding the path moved), and its Sync fails with os.ErrClosed.
func (j *Journal) File() *os.File { return j.f }
