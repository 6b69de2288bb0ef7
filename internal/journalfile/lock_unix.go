//go:build unix

package journalfile

import (
	"os"
	"syscall"
)

// flock takes f's exclusive lock (flock(2)), waiting for other holders.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		if err != syscall.EINTR {
			return err
		}
	}
}

// fileID is the open file's device and inode.
func fileID(f *os.File) (dev, ino uint64, err error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), uint64(st.Ino), nil
}

// pathID is the device and inode of what is at path, a symlink itself
// rather than what it leads to (lstat).
func pathID(path string) (dev, ino uint64, err error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Dev), uint64(st.Ino), nil
}
