//go:build unix

package cli

import "syscall"

const (
	terminalPath = "/dev/tty"
	// O_NOCTTY: a hook started without a terminal must not acquire one;
	// O_NONBLOCK: a stopped terminal must not hold the hook.
	terminalFlags = syscall.O_NOCTTY | syscall.O_NONBLOCK
)
