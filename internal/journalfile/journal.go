// Package journalfile keeps a session's in-progress file: one header line, then
// one linked step per line (RFC 8785 canonical JSON), appended under an
// exclusive flock on a sidecar lock file that is never replaced. An append
// reads only the file's last line, so its cost does not grow with the
// session's length.
//
// Files in the directory, for session ID:
//
//	ID.steps.jsonl   header line + steps
//	ID.lock          flock target (stable; never renamed or removed)
package journalfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Header is the first line of an in-progress file.
type Header struct {
	Session string // the harness's session id
	Cwd     string // the first cwd an event gave
	Harness string // e.g. "claude-code"
	// Recorder is the program that captured the steps (session.recorder,
	// spec §4); nil when the header names none. ReadAll fills it.
	Recorder *format.Recorder
	// Describe, when Recorder is nil, is asked by Append only when it
	// writes the header line, that is once per session: describing may be
	// costly (hashing the recorder's executable), and no event pays for it
	// but the first. (An interface, not a func, so Header stays comparable.)
	Describe RecorderSource
}

// RecorderSource describes the recording program; it may return nil.
type RecorderSource interface {
	Recorder() *format.Recorder
}

// FS is the journal's only way to the file system. Fault-injection tests
// replace its functions to play a full disk, a read-only directory or a
// process killed inside a write; nothing else should change it.
var FS = struct {
	MkdirAll func(path string, perm os.FileMode) error
	OpenFile func(name string, flag int, perm os.FileMode) (*os.File, error)
	Write    func(f *os.File, b []byte) (int, error)
	Truncate func(f *os.File, size int64) error
}{os.MkdirAll, durable.OpenWrite, (*os.File).Write, (*os.File).Truncate}

// Journal is an open, locked in-progress file. Close releases the lock.
type Journal struct {
	Dir, Session string
	lock, f      *os.File
	tip          *tip // the last step this Journal wrote (tip.go)
	// A kept Journal's (keep.go): the open file's and the lock file's
	// identities (0 until the first Unlock) and the step it wrote last.
	dev, ino         uint64
	lockDev, lockIno uint64
	last             *last
	// Log, when not nil, is told every write this Journal makes to its
	// file, once made: the file's name in Dir, the offset the bytes went
	// to, and the bytes (the server's write-ahead log, internal/wal,
	// which the server fsyncs in place of the journal). When it fails
	// the write is taken back, as a short one is, and the append fails:
	// no byte may be answered for that the log does not hold.
	Log func(name string, off int64, b []byte) error
	// untaken: bytes from cutTo on were written but Log failed and they
	// could not be taken back; the next write (or Close) takes them back
	// first. Chained after, they would sit below a logged write that a
	// replay then skips (the file shorter than where it went).
	untaken bool
	cutTo   int64
}

// ErrSessionID is wrapped by the errors ValidSessionID returns.
var ErrSessionID = errors.New("invalid session id")

// ValidSessionID refuses ids that could escape the directory or make odd
// file names: it allows 1-128 characters of [A-Za-z0-9._-], not starting
// with '.' or '-'. It is checked before the id touches any path.
func ValidSessionID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty", ErrSessionID)
	}
	if len(id) > 128 {
		return fmt.Errorf("%w: %d bytes long, the limit is 128", ErrSessionID, len(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			(i > 0 && (c == '.' || c == '-'))
		if !ok {
			return fmt.Errorf("%w: %q has a character outside [A-Za-z0-9._-] (or starts with '.' or '-')", ErrSessionID, id)
		}
	}
	return nil
}

// Suffix ends the name of every in-progress file: ID.steps.jsonl.
const Suffix = ".steps.jsonl"

// Path returns the in-progress file's path for a session.
func Path(dir, session string) string { return filepath.Join(dir, session+Suffix) }

// Open validates the session id, creates dir (0700) if needed, and takes
// the session's exclusive lock, waiting for other writers.
func Open(dir, session string) (*Journal, error) {
	if err := ValidSessionID(session); err != nil {
		return nil, err
	}
	if err := FS.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	// durable.OpenWrite: a symlink planted in the directory (which may be
	// committed to a repository) must not redirect writes elsewhere, and a
	// FIFO or device there must not swallow them (it is refused).
	lock, err := FS.OpenFile(filepath.Join(dir, session+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(lock); err != nil {
		lock.Close()
		return nil, fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	f, err := FS.OpenFile(Path(dir, session), os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &Journal{Dir: dir, Session: session, lock: lock, f: f}, nil
}

// Close closes the file and releases the lock.
func (j *Journal) Close() error {
	if j.untaken {
		FS.Truncate(j.f, j.cutTo) // else the next write finds them as its tail
	}
	err := j.f.Close()
	if err2 := j.lock.Close(); err == nil {
		err = err2 // closing the descriptor releases the flock
	}
	return err
}

// Append links steps after the current last step and writes them with one
// write(2), so a reader never sees half of a step unless the process dies
// inside that call; a torn last line left by such a death is cut off first
// and a note step saying so goes in before the steps (see repair.go). A new
// file gets hdr as its first line. It returns the seq of the first step
// written (a note's, when there is one).
func (j *Journal) Append(hdr Header, steps []chain.Step) (int64, error) {
	if len(steps) == 0 {
		return 0, nil
	}
	first, _, err := j.write(hdr, steps, steps[0].At, nil)
	return first, err
}

// AppendNow is Append with the steps stamped under the lock: now is asked
// for the time once the lock is held and the last step read, and a time
// earlier than that step's at is raised to it. Parallel hooks take the
// lock in any order, so a time taken at process start would put at out of
// seq order; this way at never goes back within a session, whatever the
// order, and whatever a stepped-back clock says.
func (j *Journal) AppendNow(hdr Header, steps []chain.Step, now func() string) (int64, error) {
	if len(steps) == 0 {
		return 0, nil
	}
	first, _, err := j.write(hdr, steps, "", now)
	return first, err
}

// notBefore returns at, or last when at is an earlier instant (both in the
// spec's form; text that does not parse leaves at as it is).
func notBefore(at, last string) string {
	if last == "" {
		return at
	}
	t, err1 := time.Parse(time.RFC3339Nano, at)
	l, err2 := time.Parse(time.RFC3339Nano, last)
	if err1 == nil && err2 == nil && t.Before(l) {
		return last
	}
	return at
}

// write cuts a torn tail, then appends the notes of pending cuts (stamped
// at) and steps. It returns the first seq written and how many notes.
//
// With now set, every note and step is stamped with now(), raised to the
// last step's at when earlier (AppendNow).
func (j *Journal) write(hdr Header, steps []chain.Step, at string, now func() string) (int64, int, error) {
	if j.untaken {
		if err := FS.Truncate(j.f, j.cutTo); err != nil {
			return 0, 0, fmt.Errorf("bytes the write-ahead log does not hold are still in %s, and could not be taken back: %w", j.f.Name(), err)
		}
		j.untaken = false
	}
	// The file's end is read once: it gives the torn tail, if any, and
	// the last step to link to. A kept Journal (keep.go) whose file
	// still ends with the step it wrote last links to that step.
	size, err := j.size()
	if err != nil {
		return 0, 0, err
	}
	var line []byte
	var seq int64
	var prev, lastAt string
	if l, ok := j.unchanged(size); ok {
		line, seq, prev, lastAt = l.line, l.seq, l.hash, l.at
	} else {
		var end int64
		if line, end, err = j.tailOf(size); err != nil {
			return 0, 0, err
		}
		if end != size {
			if err := j.cut(end, size); err != nil {
				return 0, 0, err
			}
			size = end
		}
		if seq, prev, lastAt, err = j.parseTail(line); err != nil {
			return 0, 0, err
		}
	}
	notes, listed, err := j.pendingCuts(line)
	if err != nil {
		return 0, 0, err
	}
	if now != nil {
		at = notBefore(now(), lastAt)
		for i := range steps {
			steps[i].At = at
		}
	}
	for i := range notes {
		notes[i].At = at
	}
	if len(notes) == 0 && len(steps) == 0 {
		if listed {
			return 0, 0, j.clearCuts() // every listed cut is noted already
		}
		return 0, 0, nil
	}
	var out []byte
	if size == 0 {
		// A new file, or one whose only line was torn.
		if out, err = headerLine(hdr); err != nil {
			return 0, 0, err
		}
	}
	first := seq + 1
	var lastLine []byte
	for _, s := range append(notes, steps...) {
		seq++
		line, hash, err := chain.Link(s, seq, prev)
		if err != nil {
			return 0, 0, err
		}
		out = append(append(out, line...), '\n')
		prev, lastLine, lastAt = hash, line, s.At
	}
	if n, err := FS.Write(j.f, out); err != nil {
		// Take back a short write (a full disk) so no torn line is left;
		// if even that fails, the next write cuts the torn tail and notes it.
		if n > 0 {
			if terr := j.f.Truncate(size); terr != nil {
				return 0, 0, fmt.Errorf("%w (and the %d bytes written could not be taken back: %v)", err, n, terr)
			}
		}
		return 0, 0, err
	}
	if j.Log != nil {
		if err := j.Log(filepath.Base(j.f.Name()), size, out); err != nil {
			if terr := FS.Truncate(j.f, size); terr != nil {
				j.untaken, j.cutTo = true, size
				return 0, 0, fmt.Errorf("%w (and the %d bytes written could not be taken back yet: %v)", err, len(out), terr)
			}
			return 0, 0, err
		}
	}
	j.tip = &tip{seq, prev}
	j.last = nil
	if j.ino != 0 && len(lastLine) <= maxKeptLine {
		// A kept Journal (keep.go) remembers the line, copied so that the
		// rest of out is not held.
		j.last = &last{line: bytes.Clone(lastLine), end: size + int64(len(out)), seq: seq, hash: prev, at: lastAt}
	}
	if listed {
		// The notes are on disk: the cuts they describe are no longer
		// pending. Should this fail, a later write notes them again.
		if err := j.clearCuts(); err != nil {
			return first, len(notes), fmt.Errorf("steps written, but the list of cuts in %s could not be emptied: %w", j.lock.Name(), err)
		}
	}
	return first, len(notes), nil
}

func (j *Journal) size() (int64, error) {
	st, err := j.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func headerLine(h Header) ([]byte, error) {
	v := strictjson.Obj(
		strictjson.Member{Key: "cwd", Value: strictjson.Str(h.Cwd)},
		strictjson.Member{Key: "format", Value: strictjson.Str(format.Journal)},
		strictjson.Member{Key: "harness", Value: strictjson.Str(h.Harness)},
	)
	r := h.Recorder
	if r == nil && h.Describe != nil {
		r = h.Describe.Recorder()
	}
	if r != nil {
		if err := r.Check(); err != nil {
			return nil, err
		}
		v.Members = append(v.Members, strictjson.Member{Key: "recorder", Value: strictjson.Obj(
			strictjson.Member{Key: "name", Value: strictjson.Str(r.Name)},
			strictjson.Member{Key: "sha256", Value: strictjson.Str(r.SHA256)},
			strictjson.Member{Key: "version", Value: strictjson.Str(r.Version)},
		)})
	}
	v.Members = append(v.Members, strictjson.Member{Key: "session", Value: strictjson.Str(h.Session)})
	b, err := jcs.Append(nil, &v)
	return append(b, '\n'), err
}

// lastLine returns the file's last complete line (without its newline) and
// the offset just past it, reading backwards from the end in growing chunks.
func (j *Journal) lastLine(size int64) ([]byte, int64, error) {
	return lastLineAt(j.f, size)
}

// LastLine returns the last complete line of the file at path (nil when
// it has none), read from its end, without the session's lock: for a
// reader that only looks at how a session stands (the commit hook, the
// seal's git note), never for a writer.
func LastLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, err
	}
	line, _, err := lastLineAt(f, st.Size())
	return line, err
}

// lastLineAt is lastLine of any file of the given size.
func lastLineAt(f io.ReaderAt, size int64) ([]byte, int64, error) {
	chunk := int64(4096)
	for {
		if chunk > size {
			chunk = size
		}
		buf := make([]byte, chunk)
		if _, err := f.ReadAt(buf, size-chunk); err != nil && err != io.EOF {
			return nil, 0, err
		}
		end := len(buf)
		for end > 0 && buf[end-1] != '\n' {
			end-- // torn bytes after the last newline (Repair reports them)
		}
		if end == 0 && chunk == size {
			return nil, 0, nil // no complete line at all
		}
		if end > 0 {
			start := end - 1
			for start > 0 && buf[start-1] != '\n' {
				start--
			}
			if start > 0 || chunk == size {
				return buf[start : end-1], size - chunk + int64(end), nil
			}
		}
		chunk *= 4
	}
}

// tail reads the end of the file once: its last complete line (nil when
// there is none), the offset just past that line, and the file's size.
func (j *Journal) tail() (line []byte, end, size int64, err error) {
	if size, err = j.size(); err != nil {
		return nil, 0, size, err
	}
	line, end, err = j.tailOf(size)
	return line, end, size, err
}

// tailOf is tail of a file of the given size.
func (j *Journal) tailOf(size int64) (line []byte, end int64, err error) {
	if size == 0 {
		return nil, 0, nil
	}
	return j.lastLine(size)
}

// Tail returns the seq and hash of the last step (-1 and "" when there is
// none). The last line must be a step written by this package.
func (j *Journal) Tail() (int64, string, error) {
	line, _, _, err := j.tail()
	if err != nil {
		return 0, "", err
	}
	seq, hash, _, err := j.parseTail(line)
	return seq, hash, err
}

func (j *Journal) parseTail(line []byte) (seq int64, hash, at string, err error) {
	if line == nil {
		return -1, "", "", nil
	}
	// Only the top-level members are read: Shallow checks the whole line
	// as strictly as Parse, without building the step's data.
	v, err := strictjson.Shallow(line, strictjson.Options{MaxDepth: format.MaxDepth}, nil)
	if err != nil {
		return 0, "", "", fmt.Errorf("%s: last line is not JSON: %v", j.f.Name(), err)
	}
	if v.Get("format") != nil {
		return -1, "", "", nil // only the header so far
	}
	hash, ok := v.GetString("hash")
	seqV := v.Get("seq")
	if !ok || seqV == nil || seqV.Kind != strictjson.Number {
		return 0, "", "", fmt.Errorf("%s: last line is not a step", j.f.Name())
	}
	seq, err = strconv.ParseInt(seqV.Str, 10, 64)
	if err != nil {
		return 0, "", "", fmt.Errorf("%s: last step's seq %q: %v", j.f.Name(), seqV.Str, err)
	}
	at, _ = v.GetString("at")
	return seq, hash, at, nil
}
