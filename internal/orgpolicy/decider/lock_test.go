//go:build unix

// Unix only: the decider is (Supported is false on Windows,
// docs/platforms.md).

package decider

import (
	"os"
	"syscall"
)

func flockNB(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
