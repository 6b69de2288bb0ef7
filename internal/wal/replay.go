package wal

import (
	"bytes"
	"errors"
	"fmt"
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
	Present  int // writes whose bytes the file had already (written again in place: apply)
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
// directory's files: it reads every segment of DIR/wal, oldest first
// (all of them once before writing anything: an entry no Log writes is
// ErrCorrupt), and makes each file its entries wrote hold their bytes,
// then fsyncs those files and the directory, and removes the segments.
// For a write of bytes at off, a file that already holds them there gets
// them again in place (so the fsync writes them: a page whose writeback
// failed reads as present), with the same result (replay is idempotent:
// a second Replay, or one after a crash inside Rotate, changes nothing);
// one that is shorter, or holds other bytes there, is cut at off and
// given the bytes, or written in place, or refused (ErrConflict), as
// apply says. A file shorter than off was cut, or removed and made
// again, after the write (a Remove entry says so): the write is skipped.
// Whatever a segment holds after its first entry that does not check (a
// torn tail) was never acknowledged and is ignored.
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
	// Every segment is read through once before anything is written: a
	// segment with an entry no log writes (ErrCorrupt: a name that is not
	// a journal's, say) stops the start with every file as it was.
	// That pass also notes each file's writes, in order, for cover.
	writes := map[string][]span{}
	for _, s := range segs {
		if err := parseFile(s.path, func(e Entry) error {
			sp := span{-1, -1} // a removal: a file made again after it is another
			if e.Kind == Write {
				sp = span{e.Off, e.Off + int64(len(e.Data))}
			}
			writes[e.Name] = append(writes[e.Name], sp)
			return nil
		}); err != nil {
			return st, err
		}
	}
	covers := map[string][]int64{}
	for name, w := range writes {
		covers[name] = cover(w)
	}
	touched := map[string]struct{}{}
	for _, s := range segs {
		if err := parseFile(s.path, func(e Entry) error {
			st.Entries++
			touched[e.Name] = struct{}{}
			c := covers[e.Name]
			covers[e.Name] = c[1:]
			return apply(dir, e, c[0], &st)
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

// ErrConflict is Replay's error when a file holds, where an entry of the
// log went, bytes that are neither the entry's nor what a power loss
// leaves (zeros, or a torn tail: bytes with no newline to the file's
// end), followed by complete lines: lines the log does not account for,
// which may have been acknowledged (a segment of another data
// directory, or a journal written on by a server that did not replay).
// Replay stops rather than cut them, and the server does not start.
var ErrConflict = errors.New("wal: the file holds other bytes, and complete lines after them, where an entry of the log went")

// span is where a write went: [off, end).
type span struct{ off, end int64 }

// cover returns, for each of a file's writes in log order, where the
// run of writes from it on, each starting at or before the end of the
// one before, ends: replay writes every byte from the write's offset to
// there again, so a cut at the offset loses none of them.
func cover(w []span) []int64 {
	c := make([]int64, len(w))
	for i := len(w) - 1; i >= 0; i-- {
		c[i] = w[i].end
		if i+1 < len(w) && w[i].off >= 0 && w[i+1].off >= 0 && w[i+1].off <= w[i].end {
			c[i] = max(c[i], c[i+1])
		}
	}
	return c
}

// parseFile reads the segment at path and Parses it, its errors naming it.
func parseFile(path string, each func(Entry) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if _, err := Parse(b, each); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// apply makes the file e names what e left it.
//
// Where the file holds other bytes than the entry's at its offset,
// replay cuts the file there and writes the entry only when nothing
// after the first differing byte can have been acknowledged: the file
// ends within cov (the entry and the writes of the log that follow it
// without a gap, all written again next), or what follows cov has no
// newline (a torn tail; every acknowledged append ends a line). Where
// the differing bytes are zeros (pages a power loss took: a failed
// fsync of the journal kept this segment while a later one, retired,
// made the journal's later bytes durable) and complete lines follow,
// the entry is written in place and the lines after it kept. Anything
// else is ErrConflict.
func apply(dir string, e Entry, cov int64, st *Stats) error {
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
	have := make([]byte, min(size, end)-e.Off)
	if _, err := f.ReadAt(have, e.Off); err != nil && err != io.EOF {
		return err
	}
	d := 0 // the first differing byte
	for d < len(have) && have[d] == e.Data[d] {
		d++
	}
	switch {
	case d == len(e.Data):
		// Written again all the same: the cache may hold pages whose
		// writeback failed (a journal fsync that failed in a rotation
		// kept this segment), clean and never on disk; reads find the
		// bytes, and the fsync after replay would write nothing.
		if _, err := f.WriteAt(e.Data, e.Off); err != nil {
			return err
		}
		st.Present++
		return f.Close()
	case size <= cov:
		// Nothing past what the log writes again: the file's bytes from
		// the entry's offset are the log's, cut short or replaced.
	default:
		torn, err := noNewline(f, max(cov, e.Off+int64(d)), size)
		if err != nil {
			return err
		}
		if !torn {
			if !zerosWhereDiffer(have, e.Data) {
				return fmt.Errorf("%s at %d: %w", e.Name, e.Off+int64(d), ErrConflict)
			}
			if _, err := f.WriteAt(e.Data, e.Off); err != nil {
				return err
			}
			st.Written++
			return f.Close()
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

// noNewline reports whether f's bytes from off to size hold no newline.
func noNewline(f *os.File, off, size int64) (bool, error) {
	buf := make([]byte, min(size-off, 64<<10))
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return false, nil
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		if n == 0 {
			break
		}
		off += int64(n)
	}
	return true, nil
}

// zerosWhereDiffer reports whether every byte of have that is not
// want's is zero.
func zerosWhereDiffer(have, want []byte) bool {
	for i, c := range have {
		if c != want[i] && c != 0 {
			return false
		}
	}
	return true
}
