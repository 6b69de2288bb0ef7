//go:build !linux

package wraprun

import "syscall"

// pidfdAttr: no pidfd here; a goroutine waits for the command instead.
func pidfdAttr(*int) *syscall.SysProcAttr { return nil }

// pidfdSignal is never called here: no pidfd is ever asked for.
func pidfdSignal(pidfd int, sig syscall.Signal) error { return syscall.ENOSYS }
