//go:build !linux

package wraprun

import "syscall"

func setPipeSize(int) {}

// pipe2 makes a pipe whose ends are closed on exec (and stay blocking),
// holding ForkLock so no process started meanwhile inherits them.
func pipe2(p *[2]int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := syscall.Pipe(p[:]); err != nil {
		return err
	}
	syscall.CloseOnExec(p[0])
	syscall.CloseOnExec(p[1])
	return nil
}
