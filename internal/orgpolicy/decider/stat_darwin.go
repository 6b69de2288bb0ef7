package decider

import (
	"os"
	"syscall"
)

func mtimeOf(st *syscall.Stat_t) int64 { return st.Mtimespec.Nano() }

// SelfIdentity is the running program's file's identity. macOS has no
// /proc/self/exe: the file at os.Executable's path is taken, so a binary
// replaced between this process's start and this call gives the new
// one's identity (the decider then serves a key its callers also
// compute, and leaves at the next change as usual).
func SelfIdentity() (Identity, error) {
	exe, err := os.Executable()
	if err != nil {
		return Identity{}, err
	}
	return StatIdentity(exe)
}
