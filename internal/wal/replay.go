package wal

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/durable"
)

// Stats says what Replay did.
type Stats struct {
	Segments int // segments read (and removed)
	Entries  int // entries that checked
	Written  int // writes put back into a file that lacked their bytes
	Present  int // writes whose bytes the file had already
	// Skipped: writes to a file now shorter than where they went (or
	// gone): cut or removed after the write, so the bytes have nothing
	// to follow.
	Skipped int
	Removed int // files removed again
	last    uint64
}

type seg struct {
	n    uint64
	path string
}

// segments lists the segments of wdir, oldest first.
func segments(wdir string) ([]seg, error) {
	ents, err := os.ReadDir(wdir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []seg
	for _, e := range ents {
		num, ok := strings.CutSuffix(e.Name(), ".wal")
		n, err := strconv.ParseUint(num, 10, 64)
		if !ok || err != nil || len(num) != 20 {
			continue
		}
		out = append(out, seg{n, filepath.Join(wdir, e.Name())})
	}
	slices.SortFunc(out, func(a, b seg) int { return cmpU(a.n, b.n) })
	return out, nil
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Replay runs at start, before anything reads or writes the data
// directory's files: it reads every segment of DIR/wal, oldest first,
// and makes each file its entries wrote hold their bytes, then fsyncs
// those files and the directory, and removes the segments. For a write
// of bytes at off, a file that already holds them there is left as it
// is (replay is idempotent: a second Replay, or one after a crash inside
// Rotate, finds everything in place); one that is shorter, or holds
// other bytes there (a power loss kept part of an append, or an
// unacknowledged append that took the place of another), is cut at off
// and given the bytes. A file shorter than off was cut, or removed and
// made again, after the write (a Remove entry says so): the write is
// skipped. Whatever a segment holds after its first entry that does not
// check (a torn tail) was never acknowledged and is ignored.
//
// Replay takes DIR/wal's lock for the time it runs (ErrInUse when a Log
// of another process holds it); Open replays too.
func Replay(dir string, opts Options) (Stats, error) {
	l := &Log{dir: dir, wdir: filepath.Join(dir, Subdir), opts: opts}
	defer l.unlock()
	return l.replay()
}

// replay is Replay, leaving the lock held.
func (l *Log) replay() (Stats, error) {
	dir := l.dir
	var st Stats
	if err := l.lock(); err != nil {
		return st, err
	}
	segs, err := segments(l.wdir)
	if err != nil || len(segs) == 0 {
		return st, err
	}
	st.last = segs[len(segs)-1].n
	touched := map[string]struct{}{}
	for _, s := range segs {
		b, err := os.ReadFile(s.path)
		if err != nil {
			return st, err
		}
		if _, err := Parse(b, func(e Entry) error {
			st.Entries++
			touched[e.Name] = struct{}{}
			return apply(dir, e, &st)
		}); err != nil {
			return st, err
		}
		st.Segments++
	}
	names := make([]string, 0, len(touched))
	for n := range touched {
		names = append(names, n)
	}
	slices.Sort(names)
	if err := l.syncFiles(names); err != nil {
		return st, err
	}
	for _, s := range segs {
		if err := os.Remove(s.path); err != nil {
			return st, err
		}
	}
	return st, l.syncPath(l.wdir, nil)
}

// apply makes the file e names what e left it.
func apply(dir string, e Entry, st *Stats) error {
	p := filepath.Join(dir, e.Name)
	if e.Kind == Remove {
		if err := os.Remove(p); err == nil {
			st.Removed++
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	flag := os.O_RDWR
	if e.Off == 0 {
		flag |= os.O_CREATE // its first bytes: a power loss may have taken its name
	}
	f, err := durable.OpenWrite(p, flag, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		st.Skipped++
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	size, end := fi.Size(), e.Off+int64(len(e.Data))
	if size < e.Off {
		st.Skipped++
		return nil
	}
	if size >= end {
		have := make([]byte, len(e.Data))
		if _, err := f.ReadAt(have, e.Off); err != nil && err != io.EOF {
			return err
		}
		if bytes.Equal(have, e.Data) {
			st.Present++
			return nil
		}
	}
	if err := f.Truncate(e.Off); err != nil {
		return err
	}
	if _, err := f.WriteAt(e.Data, e.Off); err != nil {
		return err
	}
	st.Written++
	return f.Close()
}
