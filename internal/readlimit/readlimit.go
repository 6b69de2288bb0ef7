// Package readlimit reads the files a verifier is handed with a ceiling on
// their size, so that /dev/zero, a runaway pipe or a planted FIFO ends in a
// named error instead of exhausting memory or hanging.
//
// Each kind of input has its own limit (docs/limits.md lists them). Small
// inputs (keys, policies, proofs, roots, attestations) must be regular
// files, like the redaction config; large ones (records, bundles,
// transcripts) may also come from a pipe such as /dev/stdin, read to at
// most their limit.
package readlimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/logbook-project/logbook/internal/bigbuf"
)

// The limits, one per kind of input.
const (
	Key      = 64 << 10  // a PEM public key, an HMAC key, a checkpoint key
	Policy   = 1 << 20   // a --policy, --log-policy or --trusted-identities file
	Roots    = 1 << 20   // a PEM bundle of root certificates
	Record   = 1 << 30   // a record, a bundle (a transcript: lines.MaxBytes)
	Cassette = 256 << 20 // a runback cassette (4x the 100,000-event benchmark, 61 MB)
	// AttestationBundle: a session attestation bundle (internal/sigbundle):
	// one naming 10,000 commits, with a proof of logging, is 1.7 MB
	// (go test ./internal/sigbundle -run TestManyCommits -v).
	AttestationBundle = 4 << 20
)

// ErrTooLarge is wrapped by every error over a limit.
var ErrTooLarge = errors.New("over its size limit")

// ErrNotRegular is wrapped when a small input is a FIFO, device or socket,
// and by durable's refusal to write to one (durable.NotRegularError).
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError names the file and the limit it went over.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than the %s limit for this input", e.Path, Human(e.Limit))
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// Human writes n as KiB, MiB or GiB when it is a whole number of them.
func Human(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens a regular file of at most limit bytes for a reader that
// streams it, and returns its size: what Small would read, without
// reading it (a route that sends a long record as it lies on disk). A
// FIFO, device, socket or directory is refused unopened for reading.
func Open(path string, limit int64) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case st.IsDir():
		err = fmt.Errorf("read %s: is a directory", path)
	case !st.Mode().IsRegular():
		err = NotRegular(path, st.Mode())
	case st.Size() > limit:
		err = &TooLargeError{path, limit}
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// Small reads a regular file of at most limit bytes. A FIFO, device or
// socket is refused without reading: it could block or never end.
func Small(path string, limit int64) ([]byte, error) {
	return read(path, limit, false)
}

// Large reads a file of at most limit bytes into a buffer from bigbuf. A
// pipe (a FIFO, /dev/stdin fed by a pipe) is read too, up to limit+1
// bytes, and memory stays within about the bytes read: a stream is
// refused for its length before it is copied whole. A FIFO with no writer
// reads as empty rather than waiting for one. A device (/dev/zero, a
// terminal) or socket is refused at once, unread.
func Large(path string, limit int64) ([]byte, error) {
	return read(path, limit, true)
}

// NotRegular is the error for a path whose mode is not a regular file's.
func NotRegular(path string, mode os.FileMode) error {
	what := "special file"
	switch {
	case mode.IsDir():
		what = "directory"
	case mode&os.ModeNamedPipe != 0:
		what = "named pipe"
	case mode&os.ModeCharDevice != 0:
		what = "character device"
	case mode&os.ModeDevice != 0:
		what = "block device"
	case mode&os.ModeSocket != 0:
		what = "socket"
	}
	return fmt.Errorf("%s: %w (a %s)", path, ErrNotRegular, what)
}

// NotJSONError is LargeJSON's error for a stream whose first byte other
// than white space cannot begin a JSON text: Head holds what was read,
// enough for a parser to name the byte, and the rest was not read.
type NotJSONError struct {
	Path string
	Head []byte
}

func (e *NotJSONError) Error() string {
	return fmt.Sprintf("%s: not JSON (its first bytes cannot begin a JSON text)", e.Path)
}

// headSize is how much of a stream LargeJSON looks at before going on.
const headSize = 64 << 10

// LargeJSON is Large for an input that must be one JSON text (a record,
// a bundle, a cassette). A stream (a pipe) whose first byte other than
// white space cannot begin a JSON value is refused after its first
// chunk, with a *NotJSONError holding that chunk, rather than read to
// the limit: 1.2 GB of NUL bytes piped to logbook-verify peaked at
// 1.8 GB before.
func LargeJSON(path string, limit int64) ([]byte, error) {
	return readFile(path, limit, true, true)
}

func read(path string, limit int64, pipes bool) ([]byte, error) {
	return readFile(path, limit, pipes, false)
}

// jsonStart reports whether c can begin a JSON value.
func jsonStart(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// notJSON reports a head whose first byte other than white space cannot
// begin a JSON text (a head of white space alone says nothing yet).
func notJSON(head []byte) bool {
	for _, c := range head {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return !jsonStart(c)
	}
	return false
}

func readFile(path string, limit int64, pipes, sniff bool) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer; a regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	m := st.Mode()
	if st.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", path)
	}
	if !m.IsRegular() && !(pipes && m&os.ModeNamedPipe != 0) {
		return nil, NotRegular(path, m)
	}
	var from io.Reader = f
	if sniff && !m.IsRegular() {
		head := make([]byte, min(headSize, limit+1))
		n, err := io.ReadFull(f, head)
		head = head[:n]
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, err
		}
		if notJSON(head) {
			return nil, &NotJSONError{path, head}
		}
		from = io.MultiReader(bytes.NewReader(head), f)
	}
	b, over, err := bigbuf.ReadStreamLimit(from, limit)
	if err != nil {
		return nil, err
	}
	if over {
		return nil, &TooLargeError{path, limit}
	}
	return b, nil
}
