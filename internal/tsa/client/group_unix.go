//go:build unix

package client

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel: the command's whole process group goes at the
// timeout: a child holding stdout open would otherwise keep Wait waiting.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
