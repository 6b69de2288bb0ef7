package durable

import (
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow is os.OpenFile that does not follow a symbolic link in
// path's last element. Windows has no O_NOFOLLOW: the reparse point
// itself is opened (FILE_FLAG_OPEN_REPARSE_POINT) and, when it is a
// symbolic link, junction or other name surrogate (what os.Lstat calls a
// symlink or irregular), closed again and refused with ELOOP, as
// O_NOFOLLOW refuses a link. Other reparse points (OneDrive's cloud
// files, deduplicated files) are files and are opened. O_TRUNC waits for
// the check, so a link's own data is never truncated.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, (flag&^os.O_TRUNC)|syscall.FILE_FLAG_OPEN_REPARSE_POINT, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode().Type()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
