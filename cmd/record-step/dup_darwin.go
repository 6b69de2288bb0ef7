package main

import (
	"os"
	"syscall"
)

// dupStdin makes f this process's stdin (macOS has no dup3).
func dupStdin(f *os.File) error { return syscall.Dup2(int(f.Fd()), 0) }
