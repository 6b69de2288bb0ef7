// Command logbook-wrap runs a command on the record: stdin, stdout and
// stderr pass straight through, it exits with the command's status, and an
// exec step before and after the command (package wrap) goes either into a
// session's in-progress file, for logbook-seal to seal later, or into a
// one-shot record sealed at once.
//
//	logbook-wrap [--dir DIR] --session ID [flags] -- CMD [ARGS...]   (append to a session)
//	logbook-wrap --out RECORD [--key FILE] [flags] -- CMD [ARGS...]  (seal a one-shot record)
//
// --session defaults to $LOGBOOK_SESSION, DIR as for record-step, the key
// as for logbook-seal. Exit status: the command's; 128+N when signal N
// ended it; 127 no such command, 126 not executable; 125 the wrapper's own
// failure (usage, key, glob cap, or a step it could not record); 2 an
// unknown flag, as for every logbook command; 0 for --help and --version. Nothing is
// ever written to stdout but the command's own output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/wraprun"
	"github.com/logbook-project/logbook/internal/wraprun/files"
	"github.com/logbook-project/logbook/wrap"
)

func main() {
	// Subscribe first, so no signal meant for the command is lost.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, wraprun.Forwarded...)
	// With SIGPIPE subscribed, a write to a closed stdout fails with EPIPE
	// instead of killing the wrapper before it records; the command still
	// gets its own SIGPIPE (the pipe to it is closed).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, sigs))
}

type config struct {
	dir, session, key, out, agent, goal string
	materials, products                 cli.List
	maxFiles                            int
}

const synopsis = `logbook-wrap [--dir DIR] --session ID [flags] -- CMD [ARGS...]    (append to a session)
logbook-wrap --out RECORD [--key FILE] [flags] -- CMD [ARGS...]   (seal a one-shot record)`

func run(args []string, stdin *os.File, stdout, stderr io.Writer, getenv func(string) string, sigs <-chan os.Signal) int {
	var c config
	fs := flag.NewFlagSet("logbook-wrap", flag.ContinueOnError)
	fs.StringVar(&c.dir, "dir", "", "session directory to append to (default $LOGBOOK_DIR, else $CLAUDE_PROJECT_DIR/.logbook, else ./.logbook)")
	fs.StringVar(&c.session, "session", "", "session `ID` to append to (default $LOGBOOK_SESSION); with --out, the one-shot record's id")
	fs.StringVar(&c.out, "out", "", "seal a one-shot record of this command into `RECORD`")
	fs.StringVar(&c.key, "key", "", "with --out: PKCS#8 PEM Ed25519 private key `FILE` (default $LOGBOOK_SIGNING_KEY text, else ~/.config/logbook/signing.key)")
	fs.StringVar(&c.agent, "agent", "", "the agent or tool the command is, e.g. codex (clear text, redacted)")
	fs.StringVar(&c.goal, "goal", "", "what the command is for (clear text, redacted)")
	fs.Var(&c.materials, "materials", "`GLOB` of files the command reads: digested before it starts (repeatable; ** allowed)")
	fs.Var(&c.products, "products", "`GLOB` of files the command makes: digested before and after, new, changed and removed ones named (repeatable)")
	fs.IntVar(&c.maxFiles, "max-files", wraprun.DefaultMaxFiles, "cap on the files the --materials globs, or the --products globs, may match")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "logbook-wrap: "+format+"\n", a...)
		return wrap.ExitFailure
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return usage("no command given: logbook-wrap [flags] -- CMD [ARGS...]")
	}
	for _, g := range append(append([]string{}, c.materials...), c.products...) {
		if !files.ValidGlob(g) {
			return usage("bad glob %q", g)
		}
	}
	if c.maxFiles <= 0 {
		return usage("--max-files must be at least 1")
	}
	if _, err := cli.Now(getenv); err != nil {
		return usage("%v", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return usage("working directory: %v", err)
	}
	if err := checkMaterials(c.materials, cwd); err != nil {
		return usage("%v", err)
	}
	if c.out != "" {
		if err := checkOut(c.out); err != nil {
			return usage("not run: %v", err)
		}
	}
	cmd := wrap.Command{Args: argv, Dir: cwd, Env: childEnv(os.Environ()),
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		Materials: c.materials, Products: c.products, MaxFiles: c.maxFiles}
	log := func(msg string) { fmt.Fprintln(stderr, "logbook-wrap:", msg) }
	// session.recorder names this program, hashed once per session: only
	// when the session's in-progress file is created.
	opt := wrap.Options{
		Now:      func() string { at, _ := cli.Now(getenv); return at },
		Agent:    c.agent,
		Goal:     c.goal,
		Recorder: "logbook-wrap",
		Signals:  sigs,
		Log:      log,
	}
	// The project's redaction patterns (DIR/redact.json) apply to the
	// command line and the other clear text; a config that cannot be used
	// stops the wrapper before the command runs, rather than record what
	// it was meant to hide.
	cfgDir, err := cli.Dir(c.dir, getenv)
	if err != nil {
		return usage("%v", err)
	}
	red, err := redact.LoadConfig(cfgDir)
	if err != nil {
		return usage("%v", err)
	}
	if c.out != "" {
		if c.dir != "" {
			return usage("--dir appends to a session, --out seals a one-shot record: give one of them")
		}
		return runOneShot(c, cmd, opt, cfgDir, red, getenv, stderr)
	}
	if c.key != "" {
		return usage("--key signs a one-shot record: it needs --out RECORD (a session is sealed by logbook-seal)")
	}
	if c.session == "" {
		c.session = getenv("LOGBOOK_SESSION")
	}
	if c.session == "" {
		return usage("give --session ID (or set LOGBOOK_SESSION) to append to a session, or --out RECORD for a one-shot record")
	}
	if err := journalfile.ValidSessionID(c.session); err != nil {
		return usage("%v", err)
	}
	dir, err := cli.Dir(c.dir, getenv)
	if err != nil {
		return usage("%v", err)
	}
	code, err := wrap.Run(dir, c.session, cmd, opt)
	if err != nil {
		_ = cli.LogError(dir, opt.Now(), "logbook-wrap", err.Error())
	}
	return code
}

// copyConfig copies from's redaction patterns, if it has any, into dir.
func copyConfig(from, dir string) error {
	b, err := os.ReadFile(filepath.Join(from, redact.ConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, redact.ConfigFile), b, 0o600)
}

// childEnv is the wrapper's environment without the signing key: a
// wrapped command (an agent, say) must not be able to sign records.
func childEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "LOGBOOK_SIGNING_KEY=") {
			out = append(out, kv)
		}
	}
	return out
}
