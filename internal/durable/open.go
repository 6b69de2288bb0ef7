package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// NotRegularError is every refusal of a path that is not a regular file
// (a FIFO, device, socket or directory) where logbook writes: it names
// the path and what it is instead, and wraps readlimit.ErrNotRegular, the
// one error for a file that is not regular, read or written.
type NotRegularError struct {
	Path string
	What string // "named pipe (FIFO)", "character device", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is a %s, not a regular file: refusing to write to it (remove it)", e.Path, e.What)
}

func (e *NotRegularError) Unwrap() error { return readlimit.ErrNotRegular }

// OpenWrite is the one way logbook opens a file it writes or appends to
// in place (a journal, its lock, errors.log, a checkpoint log, .gitignore).
// It opens without following a symlink (OpenNoFollow: a planted symlink
// must not redirect the write) and with O_NONBLOCK (opening a FIFO for
// writing would otherwise wait for a reader forever), then refuses, with a *NotRegularError, anything that is
// not a regular file: writes to a FIFO "succeed" and vanish, so an agent
// could plant one at its own journal's path and lose every event. The check
// is on the open descriptor (fstat), so no rename in between can fool it.
func OpenWrite(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := OpenNoFollow(path, flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err != nil {
		// A FIFO opened write-only with no reader fails with ENXIO, a
		// socket with ENXIO too: name the real cause.
		if errors.Is(err, syscall.ENXIO) {
			if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
				return nil, &NotRegularError{path, kind(st.Mode())}
			}
		}
		return nil, err
	}
	if err := Regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Regular returns a *NotRegularError unless f is a regular file.
func Regular(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &NotRegularError{f.Name(), kind(st.Mode())}
	}
	return nil
}

// RefuseNonRegular returns a *NotRegularError when path exists and is
// neither a regular file nor a symlink: what WriteFile would replace by
// renaming over it (a planted FIFO where a record, key or bundle goes is
// an attack or a mistake, to be named rather than silently replaced).
func RefuseNonRegular(path string) error {
	st, err := os.Lstat(path)
	if err != nil || st.Mode().IsRegular() || st.Mode()&fs.ModeSymlink != 0 {
		return nil
	}
	return &NotRegularError{path, kind(st.Mode())}
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file (" + m.Type().String() + ")"
}
