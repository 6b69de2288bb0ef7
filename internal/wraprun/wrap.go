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
	if !Supported {
		return fail(fmt.Errorf("not run: %w", ErrUnsupported))
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

// ErrUnsupported: the wrapper does not run commands on this system
// (Windows: Supported is false; docs/platforms.md).
var ErrUnsupported = errors.New("logbook-wrap runs commands on Linux and macOS only")
