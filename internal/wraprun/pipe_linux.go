package wraprun

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the command's output pipes: the
// largest an unprivileged process may set by default
// (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// setPipeSize enlarges the pipe behind fd (fcntl F_SETPIPE_SZ). It is only
// a speed-up: on failure the pipe keeps its 64 KiB.
func setPipeSize(fd int) { unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeSize) }

// pipe2 makes a pipe whose ends are closed on exec (and stay blocking).
func pipe2(p *[2]int) error { return syscall.Pipe2(p[:], syscall.O_CLOEXEC) }
