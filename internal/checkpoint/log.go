package checkpoint

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
)

// A session's checkpoints are kept in DIR/ID.checkpoints, append-only:
// each signed note followed by one blank line, so the file reads as the
// notes one after another. A note's text has no blank line and its
// signature lines are never empty, so the blank line after the signatures
// ends an entry; bytes after the last complete entry are a torn write (a
// server killed inside it) and are cut before the next append.

// LogPath is the checkpoint log's path for a session.
func LogPath(dir, session string) string { return filepath.Join(dir, session+".checkpoints") }

// Log is an open checkpoint log. It is not safe for concurrent use: the
// server appends to a session under that session's lock.
type Log struct {
	f      *os.File
	size   int64  // bytes of complete entries
	latest []byte // the last complete entry's note
	count  int
	torn   bool // bytes after size to cut before the next append
}

// OpenLog opens (creating, mode 0600) a session's checkpoint log and reads
// it once for its latest entry. session must already be a valid id.
func OpenLog(dir, session string) (*Log, error) {
	f, err := durable.OpenWrite(LogPath(dir, session), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &Log{f: f}
	for off := 0; ; {
		n := entryLen(data[off:])
		if n == 0 {
			break
		}
		l.latest = data[off : off+n-1]
		l.count++
		off += n
		l.size = int64(off)
	}
	l.torn = int64(len(data)) != l.size
	// A copy: a slice of data would keep the whole file (one note per
	// step the session ever took) in memory as long as the log is open.
	l.latest = bytes.Clone(l.latest)
	return l, nil
}

// entryLen returns the length of the complete entry at the start of b
// (note and blank line), or 0 when b does not start with one.
func entryLen(b []byte) int {
	i := bytes.Index(b, []byte("\n\n")) // end of the text
	if i < 0 {
		return 0
	}
	for j := i + 2; j < len(b); {
		k := bytes.IndexByte(b[j:], '\n')
		if k < 0 {
			return 0
		}
		if k == 0 {
			if j == i+2 {
				return 0 // no signature line
			}
			return j + 1
		}
		j += k + 1
	}
	return 0
}

// Append writes one signed note with one write(2), cutting a torn tail
// first. It returns once the write is done: a kill of the process after
// that loses nothing (a power loss can; see docs/server.md).
func (l *Log) Append(note []byte) error {
	// Only the holder of the session's lock writes here, and l.size is
	// where its last complete entry ended: a torn tail from a process that
	// died inside its write (found by OpenLog) is written over, then cut.
	if l.torn {
		if err := l.f.Truncate(l.size); err != nil {
			return fmt.Errorf("cut the torn tail of %s: %w", l.f.Name(), err)
		}
		l.torn = false
	}
	entry := append(append(make([]byte, 0, len(note)+1), note...), '\n')
	if n, err := l.f.WriteAt(entry, l.size); err != nil {
		if n > 0 {
			l.torn = true
		}
		return err
	}
	l.size += int64(len(entry))
	l.latest = note
	l.count++
	return nil
}

// Latest is the last complete note, nil when there is none.
func (l *Log) Latest() []byte { return l.latest }

// Count is how many complete notes the log holds.
func (l *Log) Count() int { return l.count }

// Close closes the file.
func (l *Log) Close() error { return l.f.Close() }

// CutAbove cuts the log at its first entry that counts more than size
// steps, and returns how many entries it cut. A power loss can keep a
// checkpoint whose step it lost (the two files are synced apart, and a
// later append can reach the log's fsync and miss the journal's); such a
// checkpoint was never acknowledged, and left in place it would stand
// beside another of the same size over a different step. The server
// calls it at start, before anything is appended.
func (l *Log) CutAbove(size int64) (int, error) {
	data := make([]byte, l.size)
	if _, err := l.f.ReadAt(data, 0); err != nil {
		return 0, err
	}
	var latest []byte
	count, cut := 0, 0
	var keep int64
	for off := 0; ; {
		n := entryLen(data[off:])
		if n == 0 {
			break
		}
		note := data[off : off+n-1]
		text, _, _ := bytes.Cut(note, []byte("\n\n"))
		if c, err := Parse(append(bytes.Clone(text), '\n')); err == nil && c.Size > size {
			cut = l.count - count
			break
		}
		latest, count, keep = note, count+1, int64(off+n)
		off += n
	}
	if cut == 0 {
		return 0, nil
	}
	if err := l.f.Truncate(keep); err != nil {
		return 0, err
	}
	l.size, l.count, l.latest, l.torn = keep, count, bytes.Clone(latest), false
	return cut, nil
}
