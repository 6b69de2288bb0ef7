package wraprun

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Forwarded lists the signals the wrapper passes on to the command: the
// ones a terminal, a CI runner or a supervisor sends to stop a job.
var Forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// SignalName is a signal's POSIX name, e.g. "SIGTERM" (stable across
// platforms, unlike its number).
func SignalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
		return fmt.Sprintf("signal %d", int(s))
	}
	return sig.String()
}

// FromTerminal reports whether sig is one a terminal's keyboard sends (^C
// SIGINT, ^\ SIGQUIT) while the wrapper's process group is the terminal's
// foreground group. The kernel then sent it to the whole group, the command
// included, so passing it on would deliver it twice (two ^C make many
// interactive programs quit). The signal's sender is not known to a Go
// program, so a kill -INT aimed at the wrapper alone in that state is not
// passed on; SIGTERM and SIGHUP always are.
func FromTerminal(sig os.Signal) bool {
	if sig != syscall.SIGINT && sig != syscall.SIGQUIT {
		return false
	}
	tty, err := os.Open("/dev/tty") // the controlling terminal, if any
	if err != nil {
		return false
	}
	defer tty.Close()
	fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP)
	return err == nil && fg == unix.Getpgrp()
}
