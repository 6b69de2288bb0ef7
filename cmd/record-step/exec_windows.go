package main

import (
	"errors"
	"os"
	"os/exec"
)

// replaceProcess runs prog with args as a child with this process's
// stdout and stderr, and stdin (or the given one), waits for it and exits
// with its status: Windows cannot replace a process's program. It
// returns only when prog cannot be started.
func replaceProcess(prog string, args []string, stdin *os.File) error {
	cmd := exec.Command(prog, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if stdin != nil {
		cmd.Stdin = stdin
	}
	err := cmd.Run()
	if stdin != nil {
		// Windows cannot remove a file that is open (the caller's
		// os.Remove failed): it goes now.
		stdin.Close()
		os.Remove(stdin.Name())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	}
	return err
}
