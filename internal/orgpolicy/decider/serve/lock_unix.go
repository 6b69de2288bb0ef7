//go:build unix

package serve

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockKey opens the key's lock file (not through a symlink) and takes
// its lock without waiting: ErrBusy when another decider holds it. The
// lock lasts as long as the file stays open.
func lockKey(path string) (*os.File, error) {
	lock, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return lock, nil
}

// cpuTime is the CPU time this process used (user and system), in
// nanoseconds.
func cpuTime() uint64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return uint64(ru.Utime.Nano() + ru.Stime.Nano())
}
