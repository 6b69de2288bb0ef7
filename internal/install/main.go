package install

import (
	"errors"
	"flag"
	"fmt"
	"github.com/logbook-project/logbook/internal/cli"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
)

// Main runs `record-step install|uninstall`: it finds the harness's
// configuration file, edits it (Add or Remove), writes a timestamped backup
// of the old file first, and reports what it did on stdout. With --dry-run
// it prints the change as a unified diff and writes nothing. Exit status:
// 0 done (or nothing to do), 1 refused or failed (the file is untouched),
// 2 usage error.
func Main(verb string, args []string, stdout, stderr io.Writer, getenv func(string) string, now time.Time) int {
	flags := flag.NewFlagSet("record-step "+verb, flag.ContinueOnError)
	harness := flags.String("harness", "", "the harness: "+strings.Join(Names(), ", "))
	project := flags.String("project", ".", "the project `DIR` whose configuration to edit")
	user := flags.Bool("user", false, "edit the user-level configuration (in the home directory) instead")
	local := flags.Bool("local", false, "Claude Code: edit .claude/settings.local.json (not committed) instead of settings.json")
	config := flags.String("config", "", "edit this configuration `FILE` (overrides --project, --user and --local)")
	bin := flags.String("bin", "", "the `DIR` holding record-step and logbook-seal, as hooks should call them (default: DIR/.logbook/bin for a project, this program's directory for --user)")
	dryRun := flags.Bool("dry-run", false, "print the change as a diff and write nothing")
	if code, done := cli.Parse(flags, args, "record-step "+verb+" --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--dry-run]", stdout, stderr); done {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "record-step %s: %s\n", verb, fmt.Sprintf(format, a...))
		return 2
	}
	if flags.NArg() > 0 {
		return usage("unexpected argument %q", flags.Arg(0))
	}
	spec := Lookup(*harness)
	if spec == nil {
		return usage("--harness must be one of %s", strings.Join(Names(), ", "))
	}
	path, t, err := resolve(spec, *project, *user, *local, *config, *bin, getenv)
	if err != nil {
		return usage("%v", err)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "record-step %s: %s: %v; nothing was changed\n", verb, path, err)
		return 1
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	var next []byte
	var notes []string
	gone := false
	if verb == "install" {
		next, notes, err = Add(old, t.Target)
	} else {
		if !exists {
			fmt.Fprintf(stdout, "%s: no such file; nothing to remove\n", path)
			return 0
		}
		var removed int
		next, removed, gone, err = Remove(old, t.Target)
		if err == nil && removed == 0 {
			fmt.Fprintf(stdout, "%s: no %s hooks of logbook's to remove\n", path, spec.Harness)
			return 0
		}
	}
	if err != nil {
		return fail(err)
	}
	if gone {
		next = nil
	}
	if exists && !gone && string(next) == string(old) {
		fmt.Fprintf(stdout, "%s: already installed; nothing changed\n", path)
		printNotes(stdout, notes)
		return 0
	}
	if *dryRun {
		fmt.Fprint(stdout, unifiedDiff(path, old, exists, next, !gone))
		printNotes(stdout, notes)
		return 0
	}
	backup := ""
	if exists {
		if backup, err = writeBackup(path, old, now); err != nil {
			return fail(fmt.Errorf("backup: %w", err))
		}
	}
	if err := writeConfig(path, next, gone); err != nil {
		return fail(err)
	}
	switch {
	case verb == "install":
		fmt.Fprintf(stdout, "%s: logbook hooks installed for %s (%d events)", path, spec.Harness, len(spec.Events))
	case gone:
		fmt.Fprintf(stdout, "%s: logbook hooks removed; the file held nothing else and was deleted", path)
	default:
		fmt.Fprintf(stdout, "%s: logbook hooks removed", path)
	}
	if backup != "" {
		fmt.Fprintf(stdout, "; backup: %s", backup)
	}
	fmt.Fprintln(stdout)
	if verb == "install" {
		notes = append(notes, spec.Notes...)
		if t.missing != "" {
			notes = append(notes, fmt.Sprintf("%s does not exist yet: build the commands there, from your logbook checkout (go build -o %s ./cmd/...)", t.missing, filepath.Dir(t.missing)))
		}
	}
	printNotes(stdout, notes)
	return 0
}

func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// target is a Target and, for a project, the binary it expects to find.
type target struct {
	Target
	missing string
}

// resolve picks the file and how its commands name the binaries.
func resolve(spec *Spec, project string, user, local bool, config, bin string, getenv func(string) string) (string, target, error) {
	t := target{Target: Target{Spec: spec}}
	var path string
	switch {
	case config != "":
		path = config
	case user:
		if spec.UserFile == "" {
			return "", t, fmt.Errorf("%s has no user-level hook configuration: install it per project", spec.Harness)
		}
		home := getenv("HOME")
		if home == "" {
			return "", t, fmt.Errorf("$HOME is not set")
		}
		path = filepath.Join(home, spec.UserFile)
	case local:
		if spec.LocalFile == "" {
			return "", t, fmt.Errorf("--local is for claude-code only")
		}
		path = filepath.Join(project, spec.LocalFile)
	default:
		path = filepath.Join(project, spec.ProjectFile)
	}
	switch {
	case bin != "":
		abs, err := filepath.Abs(bin)
		if err != nil {
			return "", t, err
		}
		t.Bin = shellQuote(abs)
	case user:
		exe, err := os.Executable()
		if err != nil {
			return "", t, err
		}
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		t.Bin = shellQuote(filepath.Dir(exe))
	default:
		t.Bin = ProjectTarget(spec).Bin
		if _, err := os.Stat(filepath.Join(project, ".logbook", "bin", "record-step")); err != nil {
			t.missing = filepath.Join(project, ".logbook", "bin", "record-step")
		}
	}
	if !user {
		t.DirFlag = ProjectDirFlag(spec)
	}
	return path, t, nil
}

// ProjectTarget is how a project's configuration (committed with it, so
// free of absolute paths) calls the binaries in PROJECT/.logbook/bin.
func ProjectTarget(spec *Spec) Target {
	bin := ".logbook/bin"
	if spec.Root != "" {
		bin = spec.Root + "/.logbook/bin"
	}
	return Target{Spec: spec, Bin: bin, DirFlag: ProjectDirFlag(spec)}
}

// ProjectDirFlag is the --dir a project's hooks pass, so records land in
// PROJECT/.logbook wherever the harness runs the hook. Claude Code's hooks
// need none: record-step finds $CLAUDE_PROJECT_DIR itself.
func ProjectDirFlag(spec *Spec) string {
	switch spec.Root {
	case `"$CLAUDE_PROJECT_DIR"`:
		return ""
	case "":
		return " --dir .logbook"
	}
	return " --dir " + spec.Root + "/.logbook"
}

// shellQuote quotes a path for a POSIX shell command line.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+,:@%", c)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeBackup copies the old file to PATH.logbook-backup-TIME (UTC), with
// a counter when that name is taken, and the old file's mode.
func writeBackup(path string, old []byte, now time.Time) (string, error) {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	base := path + ".logbook-backup-" + now.UTC().Format("20060102T150405Z")
	name := base
	for i := 1; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(old)
		if err2 := f.Sync(); err == nil {
			err = err2
		}
		if err2 := f.Close(); err == nil {
			err = err2
		}
		return name, err
	}
}

// writeConfig replaces the file (through a symlink: a dotfiles manager's
// link stays a link) atomically, keeping its mode, or deletes it.
func writeConfig(path string, data []byte, remove bool) error {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	if remove {
		return os.Remove(target)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	return durable.WriteFileMode(target, data, mode)
}
