package ostest

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// Mkfifo fails: Windows has no FIFO in the file system (its named pipes
// live under \\.\pipe\), so a test that needs one fails here, saying so.
func Mkfifo(path string) error {
	return errors.New("no FIFOs on Windows: " + path + " cannot be made")
}

// TryLock takes an exclusive lock on f's first byte without waiting
// (LockFileEx, LOCKFILE_FAIL_IMMEDIATELY): an error when another handle
// holds it.
func TryLock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// CPUTime is the user and system time this process has used so far.
func CPUTime() time.Duration {
	self, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var c, e, k, u syscall.Filetime
	if err := syscall.GetProcessTimes(self, &c, &e, &k, &u); err != nil {
		return 0
	}
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(k)+ticks(u)) * 100 // 100 ns units
}
