// Package githook adds and removes the post-commit hook through which a
// recording session learns of every commit made in its repository, the
// agent's and the person's alike (record-step commit, docs/commits.md),
// and the commit-msg hook that adds the Logbook-Record trailer when asked
// for (record-step trailer). A hook already there is never overwritten:
// it is kept beside ours as HOOK.logbook-chained, run first with its
// arguments and its exit status, and put back by Uninstall.
// core.hooksPath is honoured.
package githook

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/gitfacts"
)

// Marker is in the second line of the post-commit hook this package
// writes (MsgMarker in the commit-msg hook's): a hook without it is the
// user's.
const (
	Marker    = "# logbook post-commit hook"
	MsgMarker = "# logbook commit-msg hook"
)

// Chained is the name the user's own post-commit hook is kept under
// (HOOK.logbook-chained for another).
const Chained = "post-commit.logbook-chained"

// The hooks this package writes.
const (
	PostCommit = "post-commit" // record-step commit: names the commit
	CommitMsg  = "commit-msg"  // record-step trailer: the Logbook-Record trailer
)

func chained(name string) string { return name + ".logbook-chained" }

func marker(name string) string {
	if name == CommitMsg {
		return MsgMarker
	}
	return Marker
}

// ErrShared: core.hooksPath is set outside the repository's own
// configuration (the user's or the system's), or names a directory
// outside the work tree and its git directory: a hook there runs for
// every repository that configuration reaches, naming their commits in
// this project's sessions, and the next project's install would replace
// it. Install and Uninstall leave such a directory alone.
var ErrShared = errors.New("core.hooksPath names a directory other repositories may use (it is set in the user's or the system's git configuration, or is outside the work tree and its git directory): logbook adds no post-commit hook there, so commits are not named in the sessions (docs/commits.md)")

// ErrOtherProject: the post-commit hook is logbook's, for the sessions
// of another project of the same repository; Install leaves it.
var ErrOtherProject = errors.New("the post-commit hook is logbook's for another project's sessions")

// Dir is the hooks directory of the repository at repo: core.hooksPath
// (relative to the work tree's top) when set, else GIT_DIR/hooks.
func Dir(repo string) (string, error) {
	top, err := gitfacts.TopLevel(repo)
	if err != nil {
		return "", err
	}
	if out, err := gitfacts.Output(repo, 4096, "config", "--get", "core.hooksPath"); err == nil {
		if _, lerr := gitfacts.Output(repo, 4096, "config", "--local", "--get", "core.hooksPath"); lerr != nil {
			return "", ErrShared
		}
		p := strings.TrimSpace(string(out))
		if strings.HasPrefix(p, "~/") {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, p[2:])
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(top, p)
		}
		// A directory outside the work tree and its git directory
		// (../shared-hooks, /usr/share/…) may be other repositories'.
		gd, err := gitfacts.GitDir(repo)
		if err != nil {
			return "", err
		}
		if !within(top, p) && !within(gd, p) {
			return "", ErrShared
		}
		return p, nil
	}
	gd, err := gitfacts.GitDir(repo)
	if err != nil {
		return "", err
	}
	return filepath.Join(gd, "hooks"), nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func script(name, recordStep, sessions, server string) string {
	q := quote(recordStep)
	cmd, args := " commit", ""
	if name == CommitMsg {
		cmd, args = " trailer", ` "$1"` // the message file, which it adds the trailer to
	}
	if server != "" {
		// A server's sessions: the commit's facts go to it (record-step
		// commit --server, with $LOGBOOK_SERVER_TOKEN as the hooks send it).
		cmd += " --server " + quote(server)
	}
	dir := ""
	if sessions != "" {
		// The project's session directory, which may be below the work
		// tree's top, where the hook runs; $LOGBOOK_DIR still wins.
		dir = "LOGBOOK_DIR=${LOGBOOK_DIR:-" + quote(sessions) + "} "
	}
	return "#!/bin/sh\n" + marker(name) + ": record-step install wrote it, record-step uninstall removes it\n" +
		"# (and puts back " + chained(name) + ", the hook that was here before, which runs first).\n" +
		"status=0\n" +
		"chained=\"$(dirname \"$0\")/" + chained(name) + "\"\n" +
		"if [ -x \"$chained\" ]; then \"$chained\" \"$@\"; status=$?; fi\n" +
		"if [ -x " + q + " ]; then " + dir + q + cmd + args + " || true; fi\n" +
		"exit $status\n"
}

// Install writes the hook into repo's hooks directory, calling
// recordStep (an absolute path) with sessions (the project's session
// directory, absolute; "" for record-step's default) as $LOGBOOK_DIR
// unless one is set, and with --server server when the project's
// sessions are a logbook-server's; it returns the hook's path, or ""
// when repo is not in a git work tree (nothing to do).
func Install(repo, recordStep, sessions, server string) (string, error) {
	return install(PostCommit, repo, recordStep, sessions, server)
}

// InstallTrailer writes the commit-msg hook (record-step install
// --trailer), as Install writes the post-commit hook.
func InstallTrailer(repo, recordStep, sessions, server string) (string, error) {
	return install(CommitMsg, repo, recordStep, sessions, server)
}

func install(name, repo, recordStep, sessions, server string) (string, error) {
	dir, err := Dir(repo)
	if errors.Is(err, gitfacts.ErrNotRepo) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	hook := filepath.Join(dir, name)
	old, err := os.ReadFile(hook)
	want := script(name, recordStep, sessions, server)
	switch {
	case err == nil && ours(old, name) && sessionsOf(string(old)) != "" && sessionsOf(string(old)) != sessionsOf(want):
		return "", fmt.Errorf("%w (%s): %s", ErrOtherProject, sessionsOf(string(old)), hook)
	case err == nil && !ours(old, name):
		if _, cerr := os.Lstat(filepath.Join(dir, chained(name))); cerr == nil {
			return "", fmt.Errorf("%s is not logbook's and %s exists already: move one of them away", hook, chained(name))
		}
		if err := os.Rename(hook, filepath.Join(dir, chained(name))); err != nil {
			return "", err
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	tmp := hook + ".logbook-tmp"
	if err := os.WriteFile(tmp, []byte(want), 0o755); err != nil {
		return "", err
	}
	return hook, os.Rename(tmp, hook)
}

// Uninstall removes logbook's post-commit hook and its commit-msg hook
// and puts the chained ones back; a hook that is not logbook's, or is
// for sessions other than sessions (another project's), is left alone,
// as is a shared core.hooksPath. It returns the post-commit hook's path
// when it removed it (the commit-msg hook's when only that one).
func Uninstall(repo, sessions string) (string, error) {
	path, err := uninstall(PostCommit, repo, sessions)
	p2, err2 := uninstall(CommitMsg, repo, sessions)
	return cmp.Or(path, p2), errors.Join(err, err2)
}

func uninstall(name, repo, sessions string) (string, error) {
	dir, err := Dir(repo)
	if errors.Is(err, gitfacts.ErrNotRepo) || errors.Is(err, ErrShared) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	hook := filepath.Join(dir, name)
	b, err := os.ReadFile(hook)
	if errors.Is(err, os.ErrNotExist) || (err == nil && !ours(b, name)) {
		return "", nil
	}
	if mine := sessionsOf(script(name, "", sessions, "")); err == nil && sessionsOf(string(b)) != "" && sessionsOf(string(b)) != mine {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if err := os.Remove(hook); err != nil {
		return "", err
	}
	if _, err := os.Lstat(filepath.Join(dir, chained(name))); err == nil {
		return hook, os.Rename(filepath.Join(dir, chained(name)), hook)
	}
	return hook, nil
}

func ours(b []byte, name string) bool {
	first, rest, _ := strings.Cut(string(b), "\n")
	return strings.HasPrefix(first, "#!") && strings.HasPrefix(rest, marker(name))
}

// sessionsOf is the session directory a hook of ours names ("" for
// record-step's default).
func sessionsOf(hook string) string {
	_, rest, ok := strings.Cut(hook, "LOGBOOK_DIR=${LOGBOOK_DIR:-")
	if !ok {
		return ""
	}
	dir, _, _ := strings.Cut(rest, "} ")
	return dir
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
