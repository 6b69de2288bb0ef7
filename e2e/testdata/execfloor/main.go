// Command execfloor starts its arguments as a command and waits for it:
// the least any Go wrapper does. BenchmarkWrapOverhead times it beside
// logbook-wrap to show what starting a Go program costs on the machine.
//
// With EXECFLOOR_DURABLE=PATH it then also writes 2 KiB to PATH as
// logbook-wrap --out writes its record (the system calls of
// internal/durable: a temporary file, fsync, rename, fsync of the
// directory; written out here so that the floor imports no more than
// os): the crash-safe minimum a one-shot recorder adds.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	path := os.Getenv("EXECFLOOR_DURABLE")
	os.Unsetenv("EXECFLOOR_DURABLE") // an execfloor it starts does not write
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
	if path != "" {
		if err := writeDurable(path, make([]byte, 2048)); err != nil {
			os.Exit(1)
		}
	}
}

func writeDurable(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
