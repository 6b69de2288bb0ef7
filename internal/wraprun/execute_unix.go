//go:build unix

package wraprun

import (
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Supported: the wrapper runs commands here.
const Supported = true

// execute starts the command, passes its output on and signals to it, and
// waits for it. It fills f's end facts and returns the exit status, and
// whether the command started.
func execute(opt Options, f *facts) (int, bool) {
	outR, outW, err1 := pipe()
	errR, errW, err2 := pipe()
	// exitR tells the command's end where no pidfd does (see below).
	exitR, exitW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil { // out of descriptors, say
		closeFDs(outR, errR, exitR)
		closeAll(outW, errW, exitW)
		return notStarted(opt, f, err, ExitNotExecutable), false
	}
	pump := newPump(outR, errR, opt.Stdout, opt.Stderr)
	t0 := time.Now()
	proc, path, err := spawn(opt, outW, errW, usePidfd)
	closeAll(outW, errW) // the command holds its own copies now
	if err != nil {
		pump.close()
		closeFDs(exitR)
		exitW.Close()
		// As a shell: 127 when there is no such command, 126 when it
		// exists but cannot be executed (no permission, not a program,
		// or a script whose interpreter is missing).
		code := ExitNotExecutable
		if opt.Argv[0] == "" || missing(path, opt.Cwd, err) {
			code = ExitNotFound
			if !errors.Is(err, exec.ErrNotFound) {
				err = errNoFile
			}
		}
		return notStarted(opt, f, err, code), false
	}
	// The command's end: its pidfd becomes readable (Linux), else a
	// goroutine waits and closes exitW, which makes exitR readable.
	wait := proc.wait
	exitFD := proc.pidfd
	if proc.pidfd >= 0 {
		defer closeFDs(proc.pidfd)
		closeFDs(exitR)
		exitW.Close()
	} else {
		var ws syscall.WaitStatus
		var werr error
		waited := make(chan struct{})
		go func() {
			ws, werr = proc.wait()
			close(waited)
			exitW.Close()
		}()
		wait = func() (syscall.WaitStatus, error) { <-waited; return ws, werr }
		exitFD = exitR
		defer closeFDs(exitR)
	}

	// Signals are passed on from a goroutine of their own.
	var mu sync.Mutex // guards f.forwarded and over
	over := false
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-opt.Signals:
				if opt.Keyboard != nil && opt.Keyboard(sig) {
					continue // the terminal sent it to the command too
				}
				mu.Lock()
				if !over && proc.signal(sig) == nil {
					f.forwarded = append(f.forwarded, SignalName(sig))
				}
				mu.Unlock()
			case <-stop:
				return
			}
		}
	}()
	pump.run(exitFD, opt.Grace, func() {
		f.durationMs = time.Since(t0).Milliseconds()
		mu.Lock()
		over = true // a signal arriving now has no command to go to
		mu.Unlock()
		close(stop)
	})
	ws, werr := wait()
	f.heldOpen = pump.cut
	if f.heldOpen {
		logf(opt, "the command exited but a process it started still holds its stdout or stderr; output after %v was not passed on", opt.Grace)
	}
	f.stdout = stream{sha256: pump.out.sum, bytes: pump.out.n, err: errText(pump.out.werr)}
	f.stderr = stream{sha256: pump.err.sum, bytes: pump.err.n, err: errText(pump.err.werr)}

	if werr != nil {
		// Wait failed without a status: not expected for a started child.
		logf(opt, "waiting for the command: %v", werr)
		return ExitFailure, true
	}
	switch {
	case ws.Signaled():
		f.signal = SignalName(ws.Signal())
		return 128 + int(ws.Signal()), true
	case ws.Exited():
		return ws.ExitStatus(), true
	}
	logf(opt, "waiting for the command: status %#x", uint32(ws))
	return ExitFailure, true
}

func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}
