//go:build unix

package ostest

import (
	"os"
	"syscall"
	"time"
)

// Mkfifo makes a FIFO (mode 0600) at path.
func Mkfifo(path string) error {
	return syscall.Mkfifo(path, 0o600)
}

// TryLock takes an exclusive flock on f without waiting: an error when
// another open file description holds it.
func TryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// CPUTime is the user and system time this process has used so far. Tests
// that bound work count it rather than the wall clock, which on a loaded
// machine measures the neighbours.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
