package githook

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitInit(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return repo
}

// The user's own hook is kept, run first, and put back byte for byte;
// installing twice changes nothing; core.hooksPath is where the hook goes.
func TestInstallChainsAndRestores(t *testing.T) {
	repo := gitInit(t)
	hooks := filepath.Join(repo, ".githooks")
	if out, err := exec.Command("git", "-C", repo, "config", "core.hooksPath", ".githooks").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	os.MkdirAll(hooks, 0o755)
	mine := []byte("#!/bin/sh\necho mine >> \"$(git rev-parse --git-dir)/ran\"\n")
	os.WriteFile(filepath.Join(hooks, "post-commit"), mine, 0o755)
	for range 2 {
		hook, err := Install(repo, "/nowhere/record-step", "", "")
		if err != nil || hook != filepath.Join(hooks, "post-commit") {
			t.Fatalf("Install: %q %v", hook, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, Chained)); string(b) != string(mine) {
		t.Fatalf("the user's hook was not kept: %q", b)
	}
	// The hook runs the user's (record-step missing is no error).
	cmd := exec.Command(filepath.Join(hooks, "post-commit"))
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, ".git", "ran")); !strings.Contains(string(b), "mine") {
		t.Fatal("the chained hook did not run")
	}
	if hook, err := Uninstall(repo, ""); err != nil || hook == "" {
		t.Fatalf("Uninstall: %q %v", hook, err)
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "post-commit")); string(b) != string(mine) {
		t.Fatalf("the user's hook was not put back: %q", b)
	}
	if _, err := os.Stat(filepath.Join(hooks, Chained)); err == nil {
		t.Fatal("the chained copy is left behind")
	}
	// A hook that is not ours is never removed.
	if hook, err := Uninstall(repo, ""); err != nil || hook != "" {
		t.Fatalf("Uninstall of the user's hook: %q %v", hook, err)
	}
}

// Outside a repository there is nothing to do, and no error.
func TestNotARepo(t *testing.T) {
	if hook, err := Install(t.TempDir(), "/x/record-step", "", ""); err != nil || hook != "" {
		t.Fatalf("%q %v", hook, err)
	}
}

// The hook hands record-step the project's session directory (one below
// the work tree's top, a name with a space and a quote), unless
// $LOGBOOK_DIR is set.
func TestHookPassesTheSessionDirectory(t *testing.T) {
	repo := gitInit(t)
	bin := t.TempDir()
	out := filepath.Join(bin, "out")
	fake := filepath.Join(bin, "record-step")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"$1 $LOGBOOK_DIR\" >> '"+out+"'\n"), 0o755)
	sessions := filepath.Join(repo, "sub dir's", ".logbook")
	hook, err := Install(repo, fake, sessions, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range [][]string{nil, {"LOGBOOK_DIR=/elsewhere"}} {
		cmd := exec.Command(hook)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), env...)
		if env == nil {
			cmd.Env = append(cmd.Env, "LOGBOOK_DIR=")
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
	}
	b, _ := os.ReadFile(out)
	if want := "commit " + sessions + "\ncommit /elsewhere\n"; string(b) != want {
		t.Fatalf("record-step was run with %q, want %q", b, want)
	}
}

// A core.hooksPath of the user's git configuration is every
// repository's: a hook there would name other repositories' commits in
// this project's sessions, and the next project's install would replace
// it. Nothing is written there, and the user's hook stays as it is.
func TestSharedHooksPathLeftAlone(t *testing.T) {
	shared := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, []byte("[core]\n\thooksPath = "+shared+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	mine := []byte("#!/bin/sh\necho mine\n")
	os.WriteFile(filepath.Join(shared, "post-commit"), mine, 0o755)
	repo := gitInit(t)
	if hook, err := Install(repo, "/x/record-step", filepath.Join(repo, ".logbook"), ""); !errors.Is(err, ErrShared) || hook != "" {
		t.Fatalf("Install: %q %v", hook, err)
	}
	if hook, err := Uninstall(repo, filepath.Join(repo, ".logbook")); err != nil || hook != "" {
		t.Fatalf("Uninstall: %q %v", hook, err)
	}
	if b, _ := os.ReadFile(filepath.Join(shared, "post-commit")); string(b) != string(mine) {
		t.Fatalf("the user's shared hook was changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(shared, Chained)); err == nil {
		t.Fatal("the user's shared hook was moved aside")
	}
}

// A core.hooksPath of the repository's own configuration that names a
// directory outside it (../shared-hooks) may be other repositories':
// left alone too.
func TestOutsideHooksPathLeftAlone(t *testing.T) {
	repo := gitInit(t)
	shared := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "config", "core.hooksPath", shared).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if hook, err := Install(repo, "/x/record-step", "", ""); !errors.Is(err, ErrShared) || hook != "" {
		t.Fatalf("Install: %q %v", hook, err)
	}
	if ents, _ := os.ReadDir(shared); len(ents) != 0 {
		t.Fatalf("written to the shared directory: %v", ents)
	}
}

// Two projects of one repository: the second install does not take the
// first one's hook (its sessions would stop hearing of commits), nor
// does the second's uninstall remove it; the same project converges.
func TestOtherProjectsHookKept(t *testing.T) {
	repo := gitInit(t)
	a, b := filepath.Join(repo, "a", ".logbook"), filepath.Join(repo, "b", ".logbook")
	hook, err := Install(repo, "/x/record-step", a, "")
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(hook)
	if _, err := Install(repo, "/y/record-step", b, ""); !errors.Is(err, ErrOtherProject) {
		t.Fatalf("second project's Install: %v", err)
	}
	if h, err := Uninstall(repo, b); err != nil || h != "" {
		t.Fatalf("second project's Uninstall: %q %v", h, err)
	}
	if got, _ := os.ReadFile(hook); string(got) != string(first) {
		t.Fatalf("the first project's hook was changed: %q", got)
	}
	if _, err := Install(repo, "/z/record-step", a, ""); err != nil {
		t.Fatalf("the same project's second Install: %v", err)
	}
	if got, _ := os.ReadFile(hook); !strings.Contains(string(got), "/z/record-step") {
		t.Fatalf("the same project's hook was not rewritten: %q", got)
	}
}
