package durable

import "os"

// SyncPath flushes path to the disk: a file's data and metadata
// (FlushFileBuffers, which needs a handle open for writing, so the file
// is opened write-only: a read-only file is an error). A directory
// cannot be flushed on Windows (no handle to one can be opened for
// writing): nil is returned, and a new or renamed entry is as durable as
// NTFS's own metadata journal makes it, the weaker guarantee
// docs/platforms.md names.
func SyncPath(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}
