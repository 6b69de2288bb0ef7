// Command execfloor starts its arguments as a command and waits for it:
// the least any Go wrapper does. BenchmarkWrapOverhead times it beside
// logbook-wrap to show what starting a Go program costs on the machine.
package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
}
