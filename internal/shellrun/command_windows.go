package shellrun

import (
	"context"
	"os/exec"
	"syscall"
)

// Command is cmdline run by cmd.exe, its command line given whole
// (SysProcAttr.CmdLine): Go's quoting of each argument is not cmd's.
func Command(ctx context.Context, cmdline string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: Line("windows", cmdline)}
	return cmd
}
