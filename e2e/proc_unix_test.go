//go:build unix

package e2e

import (
	"os"
	"os/exec"
	"syscall"
)

// The process calls whose form differs by platform. The suite runs on
// Linux; on Windows it is compiled and vetted only (docs/testing.md), and
// the tests that run a process as another user or in its own session
// are Unix-only.

// credential names the user a child runs as (runAs).
type credential = syscall.Credential

// runAs runs cmd as c's user; nil leaves it as this process's.
func runAs(cmd *exec.Cmd, c *credential) {
	if c != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
	}
}

// ownSession starts cmd in a session of its own (setsid: no controlling
// terminal), so that killGroup reaches everything it starts.
func ownSession(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup SIGKILLs the process group pid leads (ownSession).
func killGroup(pid int) {
	syscall.Kill(-pid, syscall.SIGKILL)
}

// fileUID is the user that owns the file fi describes.
func fileUID(fi os.FileInfo) uint32 {
	return fi.Sys().(*syscall.Stat_t).Uid
}

// lockWait takes an exclusive flock on f, waiting for it.
func lockWait(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}
