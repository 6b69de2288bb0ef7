package e2e

import (
	"os"
	"os/exec"

	"golang.org/x/sys/windows"
)

// See proc_unix_test.go. Windows compiles these and runs none of the
// suite: runAs refuses another user, and killGroup kills the process
// alone (Windows has no process group to signal).

type credential struct{ Uid, Gid uint32 }

func runAs(cmd *exec.Cmd, c *credential) {
	if c != nil {
		panic("e2e: running a process as another user is Unix-only")
	}
}

func ownSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &windows.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func fileUID(fi os.FileInfo) uint32 {
	panic("e2e: a file's owner uid is Unix-only")
}

func lockWait(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol)
}
