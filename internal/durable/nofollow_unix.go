//go:build unix

package durable

import (
	"os"
	"syscall"
)

// OpenNoFollow is os.OpenFile that does not follow a symbolic link in
// path's last element: O_NOFOLLOW, so a link there is refused (ELOOP).
// Every system logbook builds for offers it (Windows: its own file).
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
}
