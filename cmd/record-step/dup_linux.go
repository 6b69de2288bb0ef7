package main

import (
	"os"
	"syscall"
)

// dupStdin makes f this process's stdin (dup3: linux/arm64 has no dup2).
func dupStdin(f *os.File) error { return syscall.Dup3(int(f.Fd()), 0, 0) }
