//go:build unix

package main

import (
	"os"
	"syscall"
)

// replaceProcess runs prog with args (argv[0] is prog) in this process's
// place, with stdin instead of this one's when it is not nil; it returns
// only when that fails.
func replaceProcess(prog string, args []string, stdin *os.File) error {
	if stdin != nil {
		if err := dupStdin(stdin); err != nil {
			return err
		}
	}
	return syscall.Exec(prog, append([]string{prog}, args...), os.Environ())
}
