package wrap

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the command's output pipes: the
// largest an unprivileged process may set by default
// (/proc/sys/fs/pipe-max-size).
const pipeSize = 1 << 20

// setPipeSize enlarges the pipe behind f (fcntl F_SETPIPE_SZ). It is only
// a speed-up: on failure the pipe keeps its 64 KiB.
func setPipeSize(f *os.File) {
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}
