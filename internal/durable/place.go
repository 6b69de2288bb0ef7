package durable

import (
	"io"
	"os"
	"path/filepath"

	"github.com/natefinch/atomic"
)

// Place puts tmp, a complete file already written and fsynced in path's
// directory, at path: mode set, renamed over path, the directory fsynced.
// It is WriteFileMode's last half for a file too large to hold in memory
// (a sealed record): a reader sees the old file or the new one, never a
// mix. A FIFO, device, socket or directory at path is refused.
func Place(tmp, path string, mode os.FileMode) error {
	if err := RefuseNonRegular(path); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncPath(filepath.Dir(path))
}

// WriteFrom is WriteFileMode with the contents read from r, never held
// whole.
func WriteFrom(path string, r io.Reader, mode os.FileMode) error {
	if err := RefuseNonRegular(path); err != nil {
		return err
	}
	if err := atomic.WriteFile(path, r); err != nil {
		return err
	}
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	return SyncPath(filepath.Dir(path))
}
