package wraprun

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// pidfdAttr asks for a pidfd of the command (Linux 5.3 and later): it
// becomes readable when the command ends, so the pump can poll for the
// end beside the output. *pidfd stays -1 where the kernel has none.
func pidfdAttr(pidfd *int) *syscall.SysProcAttr { return &syscall.SysProcAttr{PidFD: pidfd} }

// pidfdSignal sends sig through the pidfd (pidfd_send_signal).
func pidfdSignal(pidfd int, sig syscall.Signal) error {
	return unix.PidfdSendSignal(pidfd, sig, nil, 0)
}
