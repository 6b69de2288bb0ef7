package decider

import "syscall"

func mtimeOf(st *syscall.Stat_t) int64 { return st.Mtim.Nano() }

// SelfIdentity is the running program's own file's identity:
// /proc/self/exe is the file this process runs even when its path has
// since been replaced.
func SelfIdentity() (Identity, error) { return StatIdentity("/proc/self/exe") }
