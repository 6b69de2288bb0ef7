package durable

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace is renameat2(RENAME_NOREPLACE); where the file system
// or kernel lacks it (EINVAL, ENOSYS), an Lstat just before a rename.
func renameNoReplace(old, new string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return &os.LinkError{Op: "rename", Old: old, New: new, Err: fs.ErrExist}
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS):
		return checkThenRename(old, new)
	}
	return &os.LinkError{Op: "rename", Old: old, New: new, Err: err}
}
