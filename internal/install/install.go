// Package install puts logbook into a project, or a home directory, for
// one harness: the hook configuration (edited as text by
// internal/hookconf), the binaries the hooks call (binaries.go), the
// .gitignore entry for .logbook/ (gitignore.go) and the signing key the
// session's end seals with (key.go). cmd/logbook-install parses the flags
// into Options; Run takes the environment, the clock and the output as
// arguments.
package install

import (
	"errors"
	"fmt"
	"github.com/logbook-project/logbook/internal/githook"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// Options are what the command line says.
type Options struct {
	Verb    string // "install" or "uninstall"
	Harness string
	Project string // the project directory ("." by default)
	User    bool   // the user-level configuration instead
	Local   bool   // Claude Code's settings.local.json
	Config  string // this configuration file instead
	// Bin is the directory the binaries come from: copied into
	// PROJECT/.logbook/bin for a project, called where they are for
	// --user and --config. Default: the directory of Self.
	Bin     string
	DryRun  bool
	NoKey   bool   // install without a signing key, knowingly
	NoGuard bool   // Claude Code: no user-level guard against starts below the project
	Self    string // this program's path, for the default Bin
	// Server, when not "", is a logbook server's base URL: the events go
	// there (hookconf's server hooks) and the server seals with its own
	// key, so no signing key is made here.
	Server string
	// ServerKey is the server's public key (hex) to pin in the hooks;
	// "" asks the server (GET /v1/key) when Server is http://.
	ServerKey string
	// Enroll, when not "", is an enrollment code (logbook-server enroll)
	// traded at Server for this developer's credential (enroll.go).
	Enroll string
	// CommandHooks: record-step --server commands even where the harness
	// has HTTP hooks (hookconf.Target.CommandHooks).
	CommandHooks bool
	// Trailer: also the commit-msg hook that adds a Logbook-Record
	// trailer naming the sessions recording (opt-in: docs/commits.md).
	Trailer bool
	// Managed: the harness's system-wide managed configuration (root's;
	// managed.go), or --config FILE as one, with the switch that makes
	// the harness run managed hooks only.
	Managed bool
	// Policy, when not "", is the signed organization policy the gated
	// events' hooks apply (record-step --policy; docs/policy.md §7),
	// trusted under PolicyKeys; PolicyFail is --policy-fail ("" or "deny":
	// fail closed, "allow"). install checks the signature before it writes
	// anything and names both files by absolute path in the hook lines;
	// it copies neither.
	Policy     string
	PolicyKeys []string
	PolicyFail string
	// RequirePolicy pins the policy's digest: install refuses another,
	// and the hooks decide by no other (--require-policy).
	RequirePolicy string
	// FollowSymlinks writes through a symbolic link at (or above, within
	// the project or home) a path install writes, saying where on stdout;
	// without it such a link is refused (links.go).
	FollowSymlinks bool
	// GOOS is the system the hooks run on ("" is this one's): it picks
	// the harness's shell, the binaries' names, the home directory and
	// the managed file (platform.go).
	GOOS string
}

// maxConfig bounds a hook configuration file (they are a few KiB).
const maxConfig = 16 << 20

// Exit statuses.
const (
	Done    = 0 // done, or nothing to do
	Refused = 1 // refused or failed: the configuration is as it was
	Usage   = 2
)

// Run installs or uninstalls. It reports on stdout what it did and on
// stderr what went wrong, and returns the exit status.
func Run(o Options, stdout, stderr io.Writer, getenv func(string) string, now time.Time) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "record-step %s: %s\n", o.Verb, fmt.Sprintf(format, a...))
		return Usage
	}
	spec := hookconf.Lookup(o.Harness)
	if spec == nil {
		return usage("--harness must be one of %s", strings.Join(hookconf.Names(), ", "))
	}
	if o.Project == "" {
		o.Project = "."
	}
	project := !o.User && o.Config == "" && !o.Managed
	if project {
		// A mistyped --project must not become a new directory tree
		// holding hooks no harness will ever read.
		if st, err := os.Stat(o.Project); err != nil || !st.IsDir() {
			return usage("--project %s: no such directory (give the project's directory; install creates only .logbook and the harness's own folder in it)", o.Project)
		}
	}
	if o.Bin == "" && o.Self != "" {
		o.Bin = filepath.Dir(o.Self)
	}
	var serverNotes []string
	path, t, err := resolve(spec, o, getenv)
	if err != nil {
		return usage("%v", err)
	}
	if o.Server != "" {
		if err := hookconf.CheckServer(o.Server); err != nil {
			return usage("%v", err)
		}
		t.Server, t.CommandHooks = o.Server, o.CommandHooks
		if o.Verb == "install" && o.Enroll != "" {
			if o.DryRun {
				serverNotes = append(serverNotes, "--dry-run: the enrollment code is not traded")
			} else {
				notes, err := enroll(o.Server, o.Enroll, t.HTTPHooks(), getenv)
				if err != nil {
					fmt.Fprintf(stderr, "record-step %s: %v; nothing was changed\n", o.Verb, err)
					return Refused
				}
				serverNotes = append(serverNotes, notes...)
			}
		}
		if o.Verb == "install" {
			info, askErr := askServer(o.Server, getenv)
			key, note, err := pinKey(o, info, askErr, getenv)
			if err != nil {
				return usage("%v", err)
			}
			t.ServerKey = key
			if note != "" {
				serverNotes = append(serverNotes, note)
			}
			switch {
			case askErr == nil && info.Gated:
				t.ServerGates = true
				// The hook waits for a held call's answer a little
				// longer than the server holds it (at most an hour).
				t.ServerWait = min(max(info.ApprovalWait, 0), 3600) + 10
				serverNotes = append(serverNotes, "the server decides calls with an organization policy: the record-step --server hooks of PreToolUse and PermissionRequest are --fail-closed, so a call whose answer cannot be confirmed (server down, an answer not signed by its key) is blocked (docs/policy.md, \"Through the server\")")
			case askErr != nil:
				serverNotes = append(serverNotes, "the server could not be asked whether it gates calls with a policy ("+askErr.Error()+"): the hooks are fail-open; if it has one, install again once it answers, so that the PreToolUse hooks are --fail-closed")
			}
			if t.HTTPHooks() && t.ServerGates {
				serverNotes = append(serverNotes, "WARNING: "+spec.Harness+"'s HTTP hooks fail open: while the server cannot be reached, its policy decides nothing and the calls run; --command-hooks writes record-step --server hooks, whose PreToolUse is --fail-closed")
			}
			if t.HTTPHooks() {
				serverNotes = append(serverNotes, "WARNING: "+spec.Harness+"'s HTTP hooks cannot check who answers at "+o.Server+": while the server is down, a process that takes its port answers 200 and the events are lost without a word. --command-hooks writes record-step --server hooks, which take only answers the server signed (docs/server.md, \"Who answers\"); or listen on a unix: socket")
			}
		}
	} else if o.Enroll != "" {
		return usage("--enroll goes with --server")
	} else if o.ServerKey != "" || o.CommandHooks {
		return usage("--server-key and --command-hooks go with --server")
	}
	var gate *policyGate
	if o.Policy != "" || len(o.PolicyKeys) > 0 || o.PolicyFail != "" || o.RequirePolicy != "" {
		if gate, err = checkPolicy(o, spec); err != nil {
			if ue, ok := err.(usageError); ok {
				return usage("%s", string(ue))
			}
			fmt.Fprintf(stderr, "record-step %s: %v; nothing was changed\n", o.Verb, err)
			return Refused
		}
		t.Policy, t.PolicyFailOpen = gate.flags, o.PolicyFail == "allow"
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "record-step %s: %s: %v; nothing was changed\n", o.Verb, path, err)
		return Refused
	}
	// Every path written is checked for symlinks before anything is.
	lk := &links{follow: o.FollowSymlinks, out: stdout}
	root := o.Project
	switch {
	case o.Config != "":
		root = filepath.Dir(path)
	case o.User:
		root = o.home(getenv)
	}
	if path, err = lk.check(root, path); err != nil {
		return fail(err)
	}
	binDir := filepath.Join(o.Project, ".logbook", "bin")
	backups := backupDir(o, path)
	if project {
		if binDir, err = lk.check(o.Project, binDir); err != nil {
			return fail(err)
		}
		for _, name := range o.binaries().in(o.Bin) {
			if _, err := lk.check(o.Project, filepath.Join(binDir, name)); err != nil {
				return fail(err)
			}
		}
		if _, err := lk.check(o.Project, filepath.Join(o.Project, ".gitignore")); err != nil {
			return fail(err)
		}
		if backups, err = lk.check(o.Project, backups); err != nil {
			return fail(err)
		}
	}
	// readlimit.Small: a FIFO or device planted at the path is refused,
	// not read (a FIFO would wait for a writer forever).
	old, err := readlimit.Small(path, maxConfig)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}
	var next []byte
	var notes []string
	gone := false
	rewritten := false // an earlier install's hooks, replaced to match
	if o.Verb == "install" {
		next, notes, err = hookconf.Add(old, t)
		if err == nil && len(notes) > 0 {
			// Hooks of an earlier install with other flags (recording
			// here rather than at --server, another server, another
			// pinned key, no token then, another policy or none): each
			// is rewritten as asked now, or the notes below would
			// describe protections that are not there. The user's other
			// hooks stay.
			if gate == nil && strings.Contains(strings.Join(notes, "\n"), " --policy ") {
				// Rewritten, the hooks would no longer apply the
				// organization policy they apply now: a gate is not
				// taken off by an install that did not mention it.
				fmt.Fprintf(stderr, "record-step %s: %s: its hooks apply an organization policy (record-step --policy), and this install has no --policy: it would take the gate off. To keep it, run this install again with the same --policy and --policy-key; to take it off, first run: %s. Nothing was changed\n", o.Verb, path, o.uninstallCommand())
				return Refused
			}
			var bare []byte
			if bare, _, _, err = hookconf.Remove(old, t); err == nil {
				next, notes, err = hookconf.Add(bare, t)
			}
			if err == nil && len(notes) > 0 {
				// Still not as asked: a logbook hook install did not
				// write (no --harness of its own), which it does not touch.
				fmt.Fprintf(stderr, "record-step %s: %s: a hook of logbook's that install did not write is not what this install asks for (%s); take it out of %s by hand, then run this install again. Nothing was changed\n", o.Verb, path, strings.Join(notes, "; "), path)
				return Refused
			}
			rewritten = true
		}
		if err == nil && o.Managed && spec.ManagedOnlyKey != "" {
			next, err = hookconf.ManagedOnly(next, spec.ManagedOnlyKey)
		}
		if err == nil && o.Managed && !o.DryRun {
			if err := checkManaged(o); err != nil {
				return fail(err)
			}
		}
	} else {
		if !exists {
			fmt.Fprintf(stdout, "%s: no such file; nothing to remove\n", path)
			if project && !o.DryRun {
				printNotes(stdout, cleanup(o, spec, path, stdout, stderr, getenv, now))
			}
			return Done
		}
		var removed int
		next, removed, gone, err = hookconf.Remove(old, t)
		if err == nil && removed == 0 {
			fmt.Fprintf(stdout, "%s: no %s hooks of logbook's to remove\n", path, spec.Harness)
			if project && !o.DryRun {
				printNotes(stdout, cleanup(o, spec, path, stdout, stderr, getenv, now))
			}
			return Done
		}
	}
	if err != nil {
		return fail(err)
	}
	if gone {
		next = nil
	}
	changed := !(exists && !gone && string(next) == string(old))
	if o.DryRun {
		if changed {
			fmt.Fprint(stdout, hookconf.UnifiedDiff(path, old, exists, next, !gone))
		}
		if o.Verb == "install" && project {
			if line, ok := gitignoreNeeds(o.Project); ok {
				fmt.Fprintf(stdout, "would add %q to %s\n", line, filepath.Join(o.Project, ".gitignore"))
			}
			fmt.Fprintf(stdout, "would copy %s into %s\n", strings.Join(o.binaries().in(o.Bin), ", "), filepath.Join(o.Project, ".logbook", "bin"))
		}
		printNotes(stdout, notes)
		return Done
	}
	if o.Verb == "install" {
		// Everything the hooks need is put in place before they are
		// wired: a hook that runs before its binary exists records
		// nothing.
		if project {
			copied, err := o.binaries().copy(o.Bin, binDir)
			if err != nil {
				return fail(err)
			}
			if len(copied) > 0 {
				fmt.Fprintf(stdout, "copied %s into %s\n", strings.Join(copied, ", "), binDir)
			}
			if added, err := addGitignore(o.Project, lk); err != nil {
				return fail(fmt.Errorf(".gitignore: %w", err))
			} else if added != "" {
				fmt.Fprintf(stdout, "%s: added %s (binaries, sessions and records stay out of commits)\n", filepath.Join(o.Project, ".gitignore"), added)
			}
			// Commits, the agent's and the person's, are named in
			// the sessions recording (docs/commits.md): the project's,
			// or with --server the server's, to which the hook sends
			// each commit's facts.
			if hook, err := githook.Install(o.Project, absOr(filepath.Join(binDir, "record-step")), absOr(filepath.Join(o.Project, ".logbook")), o.Server); errors.Is(err, githook.ErrShared) || errors.Is(err, githook.ErrOtherProject) {
				notes = append(notes, "no git post-commit hook added: "+err.Error())
			} else if err != nil {
				return fail(fmt.Errorf("git post-commit hook: %w", err))
			} else if hook != "" {
				fmt.Fprintf(stdout, "%s: names each commit in the sessions recording\n", hook)
			}
			if !o.Trailer { // opt-in: it changes every commit's message
			} else if hook, err := githook.InstallTrailer(o.Project, absOr(filepath.Join(binDir, "record-step")), absOr(filepath.Join(o.Project, ".logbook")), o.Server); errors.Is(err, githook.ErrShared) || errors.Is(err, githook.ErrOtherProject) {
				notes = append(notes, "no git commit-msg hook added: "+err.Error())
			} else if err != nil {
				return fail(fmt.Errorf("git commit-msg hook: %w", err))
			} else if hook != "" {
				fmt.Fprintf(stdout, "%s: adds a Logbook-Record: SESSION trailer to each commit made while a session records\n", hook)
			}
		}
	}
	if changed {
		backup := ""
		if exists {
			if backup, err = writeBackup(backups, path, old, now); err != nil {
				return fail(fmt.Errorf("backup: %w", err))
			}
		}
		if err := writeConfig(path, next, gone); err != nil {
			return fail(err)
		}
		switch {
		case rewritten:
			fmt.Fprintf(stdout, "%s: logbook hooks of an earlier install rewritten to match this one, for %s (%d events)", path, spec.Harness, len(spec.Events))
		case o.Verb == "install":
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
	} else {
		fmt.Fprintf(stdout, "%s: already installed; nothing changed\n", path)
	}
	if o.Verb != "install" {
		if project {
			if hook, err := githook.Uninstall(o.Project, absOr(filepath.Join(o.Project, ".logbook"))); err != nil {
				notes = append(notes, "git post-commit hook not removed: "+err.Error())
			} else if hook != "" {
				fmt.Fprintf(stdout, "%s: logbook's post-commit hook removed\n", hook)
			}
			notes = append(notes, cleanup(o, spec, path, stdout, stderr, getenv, now)...)
		}
		printNotes(stdout, notes)
		return Done
	}
	notes = append(notes, spec.Notes...)
	if spec.Harness == "claude-code" && project && !o.Local {
		notes = append(notes, startGuard(o, stdout, stderr, getenv, now))
	}
	if o.Managed {
		if err := rootOnly(path); err != nil {
			notes = append(notes, "WARNING: "+path+" can be changed by a user other than root ("+err.Error()+"): the agent could rewrite these hooks")
		} else {
			notes = append(notes, path+" is root's and writable by no one else; with "+spec.ManagedOnlyKey+" the harness runs no hook from the user's or the project's settings")
		}
	} else if spec.ManagedFile != "" {
		notes = append(notes, "WARNING: these hooks are in "+path+", which the agent's user can change (point them at another URL, or remove them): as root, record-step install --harness "+spec.Harness+" --managed --bin DIR --server URL puts them in "+spec.ManagedFileOn(o.goos())+", where it cannot (docs/install.md)")
	}
	if gate != nil {
		notes = append(notes, gate.notes...)
	}
	if o.Server != "" {
		notes = append(notes, "events go to the logbook server at "+o.Server+", which seals each session with its own key at its end; nothing is recorded in this project (docs/server.md)")
		notes = append(notes, serverNotes...)
		notes = append(notes, checkServer(o.Server, stderr, getenv)...)
		printNotes(stdout, notes)
		return Done
	}
	printNotes(stdout, notes)
	if spec.Harness == "claude-code-guard" {
		// The guard records nothing, so it needs no key; and the
		// project's install, which runs it, names the key itself.
		return Done
	}
	return signingKey(o, lk, stdout, stderr, getenv)
}

// uninstallCommand is the command that takes out the hooks this
// install's options name.
func (o Options) uninstallCommand() string {
	c := "record-step uninstall --harness " + o.Harness
	switch {
	case o.Managed:
		c += " --managed"
		if o.Config != "" {
			c += " --config " + shellQuote(absOr(o.Config))
		}
	case o.Config != "":
		c += " --config " + shellQuote(absOr(o.Config))
	case o.User:
		c += " --user"
	default:
		c += " --project " + shellQuote(absOr(o.Project))
		if o.Local {
			c += " --local"
		}
	}
	return c
}

// startGuard adds the user-level guard (hookconf's claude-code-guard) that
// refuses prompts of a Claude Code session started below the project, and
// returns the note that says so.
func startGuard(o Options, stdout, stderr io.Writer, getenv func(string) string, now time.Time) string {
	why := "Claude Code reads hooks only from the directory it starts in: start it in " + absOr(o.Project) + ", not in a subdirectory"
	if o.NoGuard {
		return why + " (--no-guard: nothing refuses a session started there)."
	}
	g := Options{Verb: "install", Harness: "claude-code-guard", User: true, Bin: o.Bin, NoKey: true, FollowSymlinks: o.FollowSymlinks}
	if o.goos() == "windows" {
		return why + " (on Windows the guard is not installed: it is a POSIX shell loop over Unix paths; docs/platforms.md)."
	}
	if getenv("HOME") == "" {
		return why + " ($HOME is not set: the guard that refuses such sessions was not installed)."
	}
	var out strings.Builder
	if code := Run(g, &out, stderr, getenv, now); code != Done {
		return why + " (the guard that refuses such sessions could not be installed)."
	}
	if err := listGuard(o, getenv); err != nil {
		fmt.Fprintf(stderr, "record-step install: the guard's list of projects: %v (an uninstall elsewhere may remove the guard)\n", err)
	}
	fmt.Fprint(stdout, strings.ReplaceAll(out.String(), "logbook hooks installed for claude-code-guard (1 events)", "guard installed: a session started below a recording project is refused with the fix"))
	return why + ": a session started below it is refused (user-level guard; record-step uninstall --harness claude-code-guard --user removes it)."
}

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func printNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// resolve picks the file and how its commands name the binaries.
func resolve(spec *hookconf.Spec, o Options, getenv func(string) string) (string, hookconf.Target, error) {
	t := hookconf.Target{Spec: spec}
	shell, err := hookconf.HookShell(o.goos(), spec.Harness)
	if err != nil {
		return "", t, fmt.Errorf("%s on %s: %w", spec.Harness, o.goos(), err)
	}
	pt := hookconf.ProjectTargetOn(spec, shell, hookconf.Exe(o.goos(), ""))
	t.Shell, t.Exe = shell, pt.Exe
	var path string
	switch {
	case o.Managed:
		if spec.ManagedFile == "" {
			return "", t, fmt.Errorf("%s has no managed (system-wide, root-only) hook configuration that install knows (docs/harnesses.md)", spec.Harness)
		}
		path = spec.ManagedFileOn(o.goos())
		if o.Config != "" {
			path = o.Config
		}
	case o.Config != "":
		path = o.Config
	case o.User:
		if spec.UserFile == "" {
			return "", t, fmt.Errorf("%s has no user-level hook configuration: install it per project", spec.Harness)
		}
		home := o.home(getenv)
		if home == "" {
			return "", t, fmt.Errorf("$HOME is not set")
		}
		path = o.userFile(spec, home, getenv)
	case o.Local:
		if spec.LocalFile == "" {
			return "", t, fmt.Errorf("--local is for claude-code only")
		}
		path = filepath.Join(o.Project, spec.LocalFile)
	default:
		path = filepath.Join(o.Project, spec.ProjectFile)
	}
	if o.User || o.Config != "" || o.Managed {
		if o.Bin == "" {
			return "", t, fmt.Errorf("--bin DIR is needed: where record-step and logbook-seal are")
		}
		abs, err := filepath.Abs(o.Bin)
		if err != nil {
			return "", t, err
		}
		t.Bin = binExpr(shell, o.goos(), abs)
	} else {
		t.Bin = pt.Bin
	}
	if !o.User {
		t.DirFlag = pt.DirFlag
	}
	return path, t, nil
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

// backupDir is where the old configuration is kept: PROJECT/.logbook/backups
// for a project (ignored by git with the rest of .logbook/, so neither
// install nor uninstall leaves a file in git status), else beside the file.
func backupDir(o Options, path string) string {
	if !o.User && o.Config == "" && !o.Managed {
		return filepath.Join(o.Project, ".logbook", "backups")
	}
	return filepath.Dir(path)
}

// writeBackup copies the old file to DIR/NAME.logbook-backup-TIME (UTC),
// with a counter when that name is taken, and the old file's mode.
func writeBackup(dir, path string, old []byte, now time.Time) (string, error) {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	base := filepath.Join(dir, filepath.Base(path)+".logbook-backup-"+now.UTC().Format("20060102T150405Z"))
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

// writeConfig replaces the file (through a symlink, which Run allows only
// with --follow-symlinks: a dotfiles manager's link stays a link)
// atomically, keeping its mode, or deletes it.
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
