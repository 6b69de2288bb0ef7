// Package durable writes files so that a crash leaves the old file or the
// new one, never a mix, and never forgets the rename.
package durable

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/natefinch/atomic"
)

// WriteFile replaces path with data (mode 0644) atomically and
// durably: see WriteFileMode.
func WriteFile(path string, data []byte) error {
	return WriteFileMode(path, data, 0o644)
}

// WriteFileMode writes data to a temporary file in path's directory,
// fsyncs it, renames it over path (github.com/natefinch/atomic), then fsyncs
// the directory, which atomic does not do: without it a crash can forget
// the rename. A reader sees the old file or the new one, never a mix.
//
// A FIFO, device, socket or directory already at path is refused
// (RefuseNonRegular) rather than silently replaced.
func WriteFileMode(path string, data []byte, mode os.FileMode) error {
	if err := RefuseNonRegular(path); err != nil {
		return err
	}
	if err := atomic.WriteFile(path, bytes.NewReader(data)); err != nil {
		// For a missing directory atomic names its temporary file
		// ("cannot create temp file: open DIR/NAME123…") and does not
		// wrap the cause: say what is wrong and the fix instead.
		dir := filepath.Dir(path)
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("the directory %s does not exist (create it first: mkdir -p %s)", dir, dir)
		}
		return err
	}
	if err := os.Chmod(path, mode); err != nil {
		return err
	}
	return SyncPath(filepath.Dir(path))
}
