package hookconf

import (
	"errors"
	"strings"
)

// How a harness runs a hook's command line. On Linux and macOS every
// harness runs it with a POSIX shell (sh -c), and so does Claude Code on
// Windows (through Git Bash); there Codex runs it with cmd.exe /C
// (%COMSPEC%) and Gemini CLI with PowerShell. ShellPOSIX is the zero
// value: a Target without a Shell writes what it always wrote.
const (
	ShellPOSIX      = ""
	ShellCmd        = "cmd"
	ShellPowerShell = "powershell"
)

// ErrNoWindowsShell: install does not know which shell the harness runs
// its hooks with on Windows, so it cannot write a command it is sure runs.
var ErrNoWindowsShell = errors.New("which shell runs this harness's hooks on Windows is not known to logbook, so no hook is written (Claude Code, Codex and Gemini CLI are: docs/platforms.md)")

// HookShell is the shell harness runs its hook commands with on goos.
func HookShell(goos, harness string) (string, error) {
	if goos != "windows" {
		return ShellPOSIX, nil
	}
	switch harness {
	case "claude-code":
		return ShellPOSIX, nil // Git Bash
	case "codex":
		return ShellCmd, nil
	case "gemini":
		return ShellPowerShell, nil
	}
	return "", ErrNoWindowsShell
}

// Exe is the file name of the program name on goos.
func Exe(goos, name string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

// QuoteArg quotes s as one argument of a command line of shell.
// cmd.exe: in double quotes (a Windows path holds no double quote);
// PowerShell: in single quotes, a quote doubled. POSIX is the caller's
// (install's shellQuote).
func QuoteArg(shell, s string) string {
	switch shell {
	case ShellCmd:
		if s != "" && !strings.ContainsAny(s, " \t&|<>^()%!,;=\"") {
			return s
		}
		return `"` + s + `"`
	case ShellPowerShell:
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	return s
}

// windowsProject is a project's bin directory and --dir flag where the
// harness's shell is not POSIX: cmd.exe runs hooks in the project's
// directory (relative paths), PowerShell expands $env:GEMINI_PROJECT_DIR.
func windowsProject(shell string) (bin, dirFlag string) {
	if shell == ShellPowerShell {
		return `$env:GEMINI_PROJECT_DIR\.logbook\bin`, ` --dir "$env:GEMINI_PROJECT_DIR\.logbook"`
	}
	return `.logbook\bin`, ` --dir .logbook`
}

// ProjectTargetOn is ProjectTarget for a harness that runs hooks with
// shell (HookShell).
func ProjectTargetOn(spec *Spec, shell, exe string) Target {
	if shell == ShellPOSIX {
		t := ProjectTarget(spec)
		t.Exe = exe
		return t
	}
	bin, dir := windowsProject(shell)
	return Target{Spec: spec, Bin: bin, DirFlag: dir, Shell: shell, Exe: exe}
}

// plainCommand is Command for a cmd.exe or PowerShell hook: the program
// and its arguments only. Neither shell has test -x and || in a form both
// read, so the missing-binary check is left out: a missing record-step is
// the harness's own "not recognized" error (the event goes unrecorded
// with that error, and a gated call is not blocked by the hook).
func (t Target) plainCommand(e Event) string {
	prog := "record-step"
	if e.Seal {
		prog = "logbook-seal"
	}
	path := t.program(prog)
	c := path + " --harness " + t.Spec.Harness
	if e.Seal {
		c = path + " --hook --harness " + t.Spec.Harness
	}
	if e.Named {
		c += " --event " + e.Name
	}
	if t.Policy != "" && !e.Seal && Gated(e.Name) {
		c += t.Policy
	}
	return c + t.DirFlag
}

// plainServerCommand is serverCommand for a cmd.exe or PowerShell hook
// (no missing-binary check, as plainCommand).
func (t Target) plainServerCommand(e Event, base string) string {
	path := t.program("record-step")
	c := path + " --harness " + t.Spec.Harness
	if e.Named {
		c += " --event " + e.Name
	}
	c += " --server " + base
	if t.ServerKey != "" {
		c += " --server-key " + t.ServerKey
	}
	if t.ServerGates && !e.Seal && Gated(e.Name) {
		c += " --fail-closed"
	}
	return c + t.DirFlag
}

// program is how the shell calls prog in Bin. PowerShell: & "…" (a
// quoted path is otherwise a string, and the double quotes expand the
// project's $env:GEMINI_PROJECT_DIR). cmd.exe: quoted only when it must
// be: /C strips a line's first and last quote when it holds more than
// two, which a quoted program followed by a quoted argument would be.
func (t Target) program(prog string) string {
	path := t.Bin + `\` + prog + t.Exe
	if t.Shell == ShellPowerShell {
		return `& "` + path + `"`
	}
	return QuoteArg(ShellCmd, path)
}
