package journalfile

import (
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// flock takes f's exclusive lock, waiting for other holders: LockFileEx
// on the whole file. As flock(2)'s, the lock belongs to the open handle
// and goes when it is closed. (Windows locks are mandatory, but no one
// reads or writes the lock file's bytes.)
func flock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, math.MaxUint32, math.MaxUint32, &ol)
}

func unlock(f *os.File) error {
	var ol windows.Overlapped
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, math.MaxUint32, math.MaxUint32, &ol)
}

// fileID is the open file's volume serial number and file index (on
// ReFS, whose file ids are 128 bits, the low 64 bits: two files could
// share one, and a moved journal would then be appended to as if in
// place; NTFS's are unique).
func fileID(f *os.File) (dev, ino uint64, err error) {
	return handleID(windows.Handle(f.Fd()))
}

// pathID is the identity of what is at path, a symlink or junction
// itself rather than what it leads to (opened with
// FILE_FLAG_OPEN_REPARSE_POINT).
func pathID(path string) (dev, ino uint64, err error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, 0, err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return 0, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	return handleID(h)
}

func handleID(h windows.Handle) (dev, ino uint64, err error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return 0, 0, err
	}
	return uint64(d.VolumeSerialNumber), uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow), nil
}
