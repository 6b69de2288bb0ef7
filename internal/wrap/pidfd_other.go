//go:build !linux

package wrap

import "syscall"

// pidfdAttr: no pidfd here; a goroutine waits for the command instead.
func pidfdAttr(*int) *syscall.SysProcAttr { return nil }
