//go:build unix

package decider

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Supported: the decider runs here (Unix sockets that tell who is at
// the other end: Linux and macOS).
const Supported = true

// StatIdentity is the identity of the file at path (symlinks followed;
// "/proc/self/exe" names the running program's own file).
func StatIdentity(path string) (Identity, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return Identity{}, err
	}
	return Identity{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: mtimeOf(&st)}, nil
}

// Secure makes dir (mode 0700) when it is missing, then checks that it is
// a directory (not a symlink) of this user's own that no one else can
// enter: else another user could have put a socket there first.
func Secure(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return &Error{Code: ErrInsecure, Detail: err.Error()}
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
			return &Error{Code: ErrInsecure, Detail: err.Error()}
		}
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s: %v", dir, err)}
	}
	me := uint32(os.Geteuid())
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s is not a directory (a symlink?)", dir)}
	case st.Uid != me:
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s belongs to uid %d, not this user (uid %d): someone else could have put a decider there", dir, st.Uid, me)}
	case st.Mode&0o077 != 0:
		return &Error{Code: ErrInsecure, Detail: fmt.Sprintf("%s has mode %o: others can reach it; want 0700", dir, st.Mode&0o777)}
	}
	return nil
}
