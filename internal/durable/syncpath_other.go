//go:build !linux && !windows

package durable

import "os"

// SyncPath opens path read-only and fsyncs it (a file's data and size,
// or a directory's entries). os.File.Sync is what makes it durable on
// each system (F_FULLFSYNC on macOS); Linux has its own, cheaper one.
func SyncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}
