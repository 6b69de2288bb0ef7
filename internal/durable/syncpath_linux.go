package durable

import (
	"os"
	"syscall"
)

// SyncPath opens path read-only and fsyncs it (a file's data and size,
// or a directory's entries). It uses the descriptor directly, without an
// *os.File: the server calls it for every event it records, and os.Open
// would add a try at the runtime's poller and two fcntl calls.
func SyncPath(path string) error {
	var fd int
	err := retry(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	err = retry(func() error { return syscall.Fsync(fd) })
	if cerr := syscall.Close(fd); err == nil && cerr != nil {
		return &os.PathError{Op: "close", Path: path, Err: cerr}
	}
	if err != nil {
		return &os.PathError{Op: "sync", Path: path, Err: err}
	}
	return nil
}

// retry calls f again while it fails with EINTR.
func retry(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
