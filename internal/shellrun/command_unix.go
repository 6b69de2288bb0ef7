//go:build unix

package shellrun

import (
	"context"
	"os/exec"
	"runtime"
)

// Command is cmdline run by sh -c.
func Command(ctx context.Context, cmdline string) *exec.Cmd {
	argv := Argv(runtime.GOOS, cmdline)
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
}
