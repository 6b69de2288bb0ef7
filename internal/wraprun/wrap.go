// Package wraprun runs one command on the record: its stdin, stdout and stderr
// pass straight through (stdout and stderr are streamed, hashed and counted
// on the way), signals sent to the wrapper reach it, and two exec steps
// describe it — one appended before it starts, one after it ends, sharing
// data.toolUseId (spec §8). Digests of files matched by globs before and
// after the command say what it read and what it made. Time, I/O and the
// place steps go are the caller's: cmd/logbook-wrap appends them to a
// session's in-progress file (internal/journalfile).
package wraprun

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/wraprun/files"
)

// Exit statuses of the wrapper besides the command's own (POSIX shell
// conventions; 125 as env(1) and timeout(1) use it for their own failure).
const (
	ExitFailure       = 125 // the wrapper failed: bad flag, key, glob, or a step it could not record
	ExitNotExecutable = 126 // the command was found but could not be executed
	ExitNotFound      = 127 // no such command
)

// DefaultMaxFiles is the cap on files --materials or --products may match.
const DefaultMaxFiles = 1000

// DefaultGrace is how long output is still passed on after the command
// exited, while a process it left running holds its stdout or stderr.
const DefaultGrace = 2 * time.Second

// Options describe one wrapped run.
type Options struct {
	Argv   []string // the command and its arguments; Argv[0] is looked up in $PATH
	Cwd    string   // the working directory: the command runs there, globs and the step's cwd are relative to it
	Env    []string // the command's environment
	Stdin  *os.File // handed to the command as it is (nil: /dev/null)
	Stdout io.Writer
	Stderr io.Writer

	Agent, Goal         string           // clear text for the steps' data (redacted)
	Redactor            *redact.Redactor // the project's redaction rules; nil: the built-in ones
	Materials, Products []string         // globs (doublestar syntax)
	MaxFiles            int              // cap on matched files per flag; 0 means DefaultMaxFiles
	Grace               time.Duration

	ID       string                 // data.toolUseId shared by the two steps
	Now      func() string          // the time of a step (RFC 3339 UTC, spec §8)
	Record   func(chain.Step) error // appends one step to the session
	Signals  <-chan os.Signal       // signals to pass on to the command (the caller subscribes)
	Keyboard func(os.Signal) bool   // reports a signal the terminal already sent the command; may be nil
	Log      func(string)           // the wrapper's own messages (to stderr); may be nil
}

// Result is how the run ended.
type Result struct {
	ExitCode int   // the wrapper's exit status: the command's, 128+N after signal N, 126, 127 or 125
	Err      error // the wrapper's own failure (ExitCode 125), already logged
	Steps    int   // steps recorded: 0 (the command did not run), 1 (start only) or 2
}

// Run records and runs the command. The start step is recorded first: if
// that fails, the command does not run (it would run unrecorded). The end
// step is recorded whatever the command did: exit, signal or no start.
func Run(opt Options) Result {
	var res Result
	fail := func(err error) Result {
		logf(opt, "%v", err)
		res.ExitCode, res.Err = ExitFailure, err
		return res
	}
	if len(opt.Argv) == 0 {
		return fail(errors.New("no command given"))
	}
	if opt.MaxFiles <= 0 {
		opt.MaxFiles = DefaultMaxFiles
	}
	if opt.Grace <= 0 {
		opt.Grace = DefaultGrace
	}
	f := facts{red: opt.Redactor, id: opt.ID, command: CommandLine(opt.Argv), cwd: opt.Cwd, agent: opt.Agent, goal: opt.Goal}
	var err error
	if f.materials, err = files.Take("--materials", opt.Materials, opt.Cwd, opt.MaxFiles, false); err != nil {
		return fail(fmt.Errorf("not run: %w", err))
	}
	before, err := files.Take("--products", opt.Products, opt.Cwd, opt.MaxFiles, false)
	if err != nil {
		return fail(fmt.Errorf("not run: %w", err))
	}
	if err := opt.Record(startStep(opt.Now(), &f)); err != nil {
		return fail(fmt.Errorf("not run: its start could not be recorded: %w", err))
	}
	res.Steps = 1

	exitCode, ran := execute(opt, &f)
	f.exitCode = exitCode
	if ran && len(opt.Products) > 0 {
		after, err := files.Take("--products", opt.Products, opt.Cwd, opt.MaxFiles, true)
		if err != nil {
			logf(opt, "%v", err) // unreachable in practice: the globs were read before
		}
		if after.Truncated {
			logf(opt, "--products: the globs now match more than %d files (the cap); the first %d found are recorded and removed files are not; narrow the glob or raise --max-files", opt.MaxFiles, opt.MaxFiles)
		}
		f.products, f.productsCut = files.Diff(before, after), after.Truncated
	}
	if err := opt.Record(endStep(opt.Now(), &f)); err != nil {
		return fail(fmt.Errorf("the command exited %d but its end could not be recorded (the record will show it started and never ended): %w", exitCode, err))
	}
	res.ExitCode, res.Steps = exitCode, 2
	return res
}

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

// notStarted fills the facts of a command that could not be started and
// reports it as a shell would.
func notStarted(opt Options, f *facts, err error, code int) int {
	f.startErr = startReason(err)
	empty := stream{sha256: emptySha256}
	f.stdout, f.stderr = empty, empty
	logf(opt, "%s: %s", opt.Argv[0], f.startErr)
	return code
}

// emptySha256 is the SHA-256 of no bytes: the output of a command that
// never ran.
const emptySha256 = chain.EmptyTip

// usePidfd is switched off by a test, to run the path systems without a
// pidfd take.
var usePidfd = true

var errNoFile = errors.New("no such file or directory")

// missing reports whether a start failed because the program itself does
// not exist (rather than, say, its script interpreter).
func missing(path, cwd string, err error) bool {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return errors.Is(ee.Err, exec.ErrNotFound) || errors.Is(ee.Err, fs.ErrNotExist)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	_, serr := os.Stat(path)
	return errors.Is(serr, fs.ErrNotExist)
}

func startReason(err error) string {
	if err == errNoFile {
		return err.Error()
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		if errors.Is(ee.Err, exec.ErrNotFound) {
			return "command not found"
		}
		return reason(ee.Err)
	}
	if errors.Is(err, fs.ErrNotExist) {
		// The file was found, so execve's ENOENT is about something else.
		return "no such file or directory (a missing script interpreter?)"
	}
	return reason(err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return reason(err)
}

func logf(opt Options, format string, a ...any) {
	if opt.Log != nil {
		opt.Log(fmt.Sprintf(format, a...))
	}
}

func closeFDs(fds ...int) {
	for _, fd := range fds {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// reason is an error's last part ("permission denied"), without the path,
// which the step already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
