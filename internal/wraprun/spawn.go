package wraprun

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// child is a started command.
type child struct {
	pid   int
	pidfd int // -1 where no pidfd was asked for or the kernel gives none
}

// spawn starts the command as exec.Cmd.Start does — a name without a
// slash looked up in $PATH (exec.LookPath, with its errors), nil stdin as
// /dev/null, the environment deduplicated (the last of a name wins) — but
// through syscall.StartProcess. os.StartProcess, under exec.Cmd, first
// checks once per process that pidfds work by starting a child of its own
// and waiting for it (os.checkPidfd): a second process start on every
// logbook-wrap run. path is the program as resolved, for the caller's
// error report; on failure err is what exec.Cmd.Start would return.
func spawn(opt Options, stdout, stderr *os.File, pidfd bool) (c child, path string, err error) {
	c.pidfd = -1
	name := opt.Argv[0]
	path = name
	if filepath.Base(name) == name {
		lp, err := exec.LookPath(name)
		if lp != "" {
			path = lp
		}
		if err != nil {
			return c, path, err
		}
	}
	if path == "" {
		return c, path, errors.New("exec: no command")
	}
	stdin := opt.Stdin
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			return c, path, err
		}
		defer stdin.Close()
	}
	env, err := childEnv(opt.Env, opt.Cwd)
	if err != nil {
		return c, path, err
	}
	attr := &syscall.ProcAttr{Dir: opt.Cwd, Env: env, Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()}}
	if pidfd {
		attr.Sys = pidfdAttr(&c.pidfd)
	}
	pid, _, e := syscall.StartProcess(path, opt.Argv, attr)
	if e != nil {
		c.pidfd = -1
		return c, path, &os.PathError{Op: "fork/exec", Path: path, Err: e}
	}
	c.pid = pid
	return c, path, nil
}

// childEnv is exec.Cmd's environment for env and dir: nil is this
// process's with PWD set to dir; duplicates keep the last value; a NUL
// in a variable is an error.
func childEnv(env []string, dir string) ([]string, error) {
	if env == nil {
		env = os.Environ()
		if dir != "" {
			if pwd, err := filepath.Abs(dir); err == nil {
				env = append(env, "PWD="+pwd)
			}
		}
	}
	var err error
	out := make([]string, 0, len(env))
	saw := make(map[string]bool, len(env))
	for n := len(env); n > 0; n-- {
		kv := env[n-1]
		if strings.IndexByte(kv, 0) != -1 {
			err = errors.New("exec: environment variable contains NUL")
			continue
		}
		i := strings.Index(kv, "=")
		if i == 0 {
			i = strings.Index(kv[1:], "=") + 1
		}
		if i < 0 {
			if kv != "" {
				out = append(out, kv)
			}
			continue
		}
		if saw[kv[:i]] {
			continue
		}
		saw[kv[:i]] = true
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, err
}

// wait reaps the command and returns its status.
func (c child) wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(c.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}

// signal sends sig to the command, by its pidfd where it has one.
func (c child) signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return errors.New("unsupported signal type")
	}
	if c.pidfd >= 0 {
		return pidfdSignal(c.pidfd, s)
	}
	return syscall.Kill(c.pid, s)
}
