package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const fixtures = "../../testdata/install"

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMain_FilesBackupDryRun drives the command's file handling: dry run
// writes nothing, install writes a timestamped backup of the old bytes and
// keeps the file's mode, a malformed file is refused untouched with exit 1,
// uninstall restores the original bytes.
func TestMain_FilesBackupDryRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".claude", "settings.json")
	orig := read(t, "claude-code-settings.json")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, orig, 0o600)
	now := time.Date(2026, 5, 14, 9, 30, 0, 0, time.UTC)
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		o := Options{Verb: args[0], Project: dir, Bin: fakeBin(t), NoKey: true}
		for i := 1; i < len(args); i++ {
			switch args[i] {
			case "--harness":
				i++
				o.Harness = args[i]
			case "--dry-run":
				o.DryRun = true
			case "--user":
				o.User = true
			}
		}
		code := Run(o, &out, &errb, func(string) string { return "" }, now)
		return code, out.String(), errb.String()
	}
	code, out, _ := run("install", "--harness", "claude-code", "--dry-run")
	if code != 0 || !strings.Contains(out, "/.logbook/bin/record-step --harness claude-code\",") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(cfg); !bytes.Equal(b, orig) {
		t.Fatal("dry run wrote the file")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".logbook", "backups", "*")); len(m) != 0 {
		t.Fatal("dry run wrote a backup")
	}
	if code, out, _ = run("install", "--harness", "claude-code"); code != 0 {
		t.Fatalf("install: exit %d %s", code, out)
	}
	backup := filepath.Join(dir, ".logbook", "backups", "settings.json.logbook-backup-20260514T093000Z")
	if b, err := os.ReadFile(backup); err != nil || !bytes.Equal(b, orig) {
		t.Fatalf("backup %s: %v", backup, err)
	}
	if st, _ := os.Stat(cfg); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", st.Mode().Perm())
	}
	if code, out, _ = run("install", "--harness", "claude-code"); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("second install: exit %d %s", code, out)
	}
	if code, _, _ = run("uninstall", "--harness", "claude-code"); code != 0 {
		t.Fatal("uninstall failed")
	}
	if b, _ := os.ReadFile(cfg); !bytes.Equal(b, orig) {
		t.Error("install then uninstall did not give back the original bytes")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".logbook", "backups", "settings.json.logbook-backup-*")); len(m) != 2 {
		t.Errorf("%d backups, want one per write", len(m))
	}
	bad := read(t, "bad-trailing-comma.json")
	os.WriteFile(cfg, bad, 0o644)
	code, _, errs := run("install", "--harness", "claude-code")
	if code != 1 || !strings.Contains(errs, "cannot read it as a JSON object") || !strings.Contains(errs, "nothing was changed") {
		t.Errorf("malformed: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(cfg); !bytes.Equal(b, bad) {
		t.Error("a refused file was changed")
	}
	if code, _, _ = run("install", "--harness", "nope"); code != 2 {
		t.Errorf("unknown harness: exit %d, want 2", code)
	}
	if code, _, _ = run("install", "--harness", "vscode", "--user"); code != 2 {
		t.Errorf("vscode --user: exit %d, want 2 (no user scope)", code)
	}
}

// TestSymlinkKept: with --follow-symlinks, a configuration that is a
// symlink (dotfiles) is edited through the link, which stays a link, and
// stdout says where the write went.
func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.WriteFile(real, read(t, "claude-code-settings.json"), 0o644)
	link := filepath.Join(dir, "proj", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	var out, errb bytes.Buffer
	if Run(Options{Verb: "install", Harness: "claude-code", Project: filepath.Join(dir, "proj"), Bin: fakeBin(t), NoKey: true, NoGuard: true, FollowSymlinks: true}, &out, &errb, os.Getenv, time.Now()) != 0 {
		t.Fatal(errb.String())
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}
	if b, _ := os.ReadFile(real); !bytes.Contains(b, []byte("--harness claude-code")) {
		t.Error("the link's target was not edited")
	}
	if want := "following symlink " + link + " -> " + real; !strings.Contains(out.String(), want) {
		t.Errorf("stdout does not say %q:\n%s", want, out.String())
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/usr/local/bin": "/usr/local/bin", "/home/a b/bin": "'/home/a b/bin'", "/x/it's": `'/x/it'\''s'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// fakeBin is a directory holding stand-ins for the binaries install copies.
func fakeBin(t *testing.T) string {
	dir := t.TempDir()
	for _, n := range []string{"record-step", "logbook-seal", "logbook-install", "logbook-verify"} {
		os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n# "+n+"\n"), 0o755)
	}
	return dir
}

// TestInstallSafeToFollow: a project install copies the binaries the hooks
// call, adds .logbook/ to .gitignore once, and makes a signing key where
// logbook-seal looks; without one it fails loudly unless --no-key; install
// then uninstall leaves git status as it was (backups live in .logbook/).
func TestInstallSafeToFollow(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	proj, home := t.TempDir(), t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", proj}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), read(t, "claude-code-settings.json"), 0o644)
	os.WriteFile(filepath.Join(proj, ".gitignore"), []byte("node_modules"), 0o644) // no final newline
	git("add", "-A")
	git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "start")
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	run := func(o Options, getenv func(string) string) (int, string, string) {
		var out, errb bytes.Buffer
		o.Project, o.Harness = proj, "claude-code"
		if o.Bin == "" {
			o.Bin = fakeBin(t)
		}
		code := Run(o, &out, &errb, getenv, time.Now())
		return code, out.String(), errb.String()
	}
	code, out, errs := run(Options{Verb: "install"}, env)
	if code != 0 {
		t.Fatalf("install: %d\n%s\n%s", code, out, errs)
	}
	for _, n := range []string{"record-step", "logbook-seal", "logbook-install", "logbook-verify"} {
		if st, err := os.Stat(filepath.Join(proj, ".logbook", "bin", n)); err != nil || st.Mode()&0o100 == 0 {
			t.Errorf("%s not copied into .logbook/bin: %v", n, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".config", "logbook", "signing.key")); !bytes.Contains(b, []byte("PRIVATE KEY")) || !strings.Contains(out, "signing key: made") {
		t.Errorf("no key made:\n%s", out)
	}
	gi, _ := os.ReadFile(filepath.Join(proj, ".gitignore"))
	if string(gi) != "node_modules\n# logbook: binaries, sessions and records (record-step install)\n/.logbook/*\n" {
		t.Errorf(".gitignore: %q", gi)
	}
	// Again: nothing added twice; the key found, not made.
	if code, out, _ = run(Options{Verb: "install"}, env); code != 0 || !strings.Contains(out, "signing key: "+filepath.Join(home, ".config", "logbook", "signing.key")) {
		t.Errorf("second install: %d %s", code, out)
	}
	if gi2, _ := os.ReadFile(filepath.Join(proj, ".gitignore")); !bytes.Equal(gi, gi2) {
		t.Errorf(".gitignore changed on a second install: %q", gi2)
	}
	if code, out, errs = run(Options{Verb: "uninstall"}, env); code != 0 {
		t.Fatalf("uninstall: %d %s %s", code, out, errs)
	}
	// Only the .gitignore entry (kept: the records stay) shows.
	if st := git("status", "--porcelain"); st != " M .gitignore\n" {
		t.Errorf("git status after install and uninstall:\n%s", st)
	}
	// No key and no way to make one: loud, and exit 1 unless --no-key.
	nohome := func(string) string { return "" }
	code, _, errs = run(Options{Verb: "install"}, nohome)
	if code != 1 || !strings.Contains(errs, "NOT SEALED") {
		t.Errorf("no key: exit %d, stderr %q", code, errs)
	}
	code, _, errs = run(Options{Verb: "install", NoKey: true}, nohome)
	if code != 0 || !strings.Contains(errs, "NOT SEALED") {
		t.Errorf("--no-key: exit %d, stderr %q", code, errs)
	}
	// A --bin without the hook binaries is refused before anything is wired.
	os.RemoveAll(filepath.Join(proj, ".logbook", "bin"))
	code, _, errs = run(Options{Verb: "install", NoKey: true, Bin: t.TempDir()}, nohome)
	if code != 1 || !strings.Contains(errs, "record-step is not in") {
		t.Errorf("empty --bin: exit %d, stderr %q", code, errs)
	}
}
