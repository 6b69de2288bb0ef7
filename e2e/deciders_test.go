package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A gated hook starts its policy decider (logbook-policy serve) detached,
// and the decider lives on for 15 idle minutes. One started by a test's
// last call may still be compiling the policy and writing its cache below
// the test's directories when the test ends: the directory's removal then
// fails ("directory not empty"), and the process outlives the run. So
// every test that signs a policy reaps, before its directories go, the
// deciders whose command line names a path below them.

// reapDeciders registers a cleanup that kills the deciders naming a path
// below any of roots and waits until they are gone. A test's own
// t.TempDir parent is always one of the roots.
func reapDeciders(t testing.TB, roots ...string) {
	roots = append(roots, filepath.Dir(t.TempDir())) // registers its removal first: this cleanup runs before it
	t.Cleanup(func() {
		if left := killDeciders(roots, 10*time.Second); len(left) > 0 {
			t.Errorf("policy deciders still running after SIGKILL: %v", left)
		}
	})
}

// killDeciders SIGKILLs this user's logbook-policy serve processes with an
// argument below one of roots, and returns those still running (not
// exited, not a zombie) after wait.
func killDeciders(roots []string, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		pids := deciders(roots)
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// deciders lists the live decider processes naming a path below roots.
func deciders(roots []string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		argv, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(argv, "\x00")), "\x00")
		if len(args) < 2 || filepath.Base(args[0]) != "logbook-policy" || args[1] != "serve" || !names(args[2:], roots) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			// "pid (comm) S ...": a zombie writes nothing more.
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

func names(args, roots []string) bool {
	for _, a := range args {
		for _, r := range roots {
			if a == r || strings.HasPrefix(a, strings.TrimSuffix(r, "/")+"/") {
				return true
			}
		}
	}
	return false
}
