package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSymlinksRefused: a symlink planted in a project at any path install
// or uninstall writes (the configuration, its folder, .logbook, .logbook/bin,
// a binary, .gitignore, the backups folder) is refused with exit 1 and
// nothing is written, in the project or where the link points; and the
// key's path in $HOME too. Before, the hooks were merged into the link's
// target and the binaries copied into a linked .logbook without a word.
func TestSymlinksRefused(t *testing.T) {
	t.Parallel()
	orig := read(t, "claude-code-settings.json")
	cases := []struct {
		name string
		verb string
		link string // below the project
		file bool   // the link points to a file (else a directory)
	}{
		{"settings.json", "install", ".claude/settings.json", true},
		{".claude", "install", ".claude", false},
		{".logbook", "install", ".logbook", false},
		{".logbook/bin", "install", ".logbook/bin", false},
		{"binary", "install", ".logbook/bin/record-step", true},
		{".gitignore", "install", ".gitignore", true},
		{"backups", "install", ".logbook/backups", false},
		{"uninstall settings.json", "uninstall", ".claude/settings.json", true},
		{"uninstall backups", "uninstall", ".logbook/backups", false},
		{"uninstall .logbook", "uninstall", ".logbook", false}, // would remove the binaries where it points
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
			os.MkdirAll(outside, 0o755)
			os.MkdirAll(proj, 0o755)
			bin := fakeBin(t)
			if c.verb == "uninstall" || c.link == ".logbook/backups" {
				// An installed project, so there is something to back up.
				os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
				os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), orig, 0o644)
				var o, e bytes.Buffer
				if Run(Options{Verb: "install", Harness: "claude-code", Project: proj, Bin: bin, NoKey: true, NoGuard: true}, &o, &e, env(root), time.Now()) != 0 {
					t.Fatal(e.String())
				}
				if c.link == ".logbook/backups" {
					os.RemoveAll(filepath.Join(proj, ".logbook", "backups"))
				}
				if c.link == ".claude/settings.json" {
					os.Rename(filepath.Join(proj, ".claude", "settings.json"), filepath.Join(outside, "target"))
				}
			}
			target := filepath.Join(outside, "target")
			if c.file {
				if _, err := os.Stat(target); err != nil {
					os.WriteFile(target, []byte("{}\n"), 0o644)
				}
			} else {
				os.MkdirAll(target, 0o755)
				if c.link == ".logbook" {
					os.MkdirAll(filepath.Join(target, "bin"), 0o755)
					os.WriteFile(filepath.Join(target, "bin", "record-step"), []byte("someone else's"), 0o755)
				}
			}
			at := filepath.Join(proj, c.link)
			os.MkdirAll(filepath.Dir(at), 0o755)
			os.RemoveAll(at)
			if err := os.Symlink(target, at); err != nil {
				t.Skip(err)
			}
			before := snapshot(t, root)
			var out, errb bytes.Buffer
			code := Run(Options{Verb: c.verb, Harness: "claude-code", Project: proj, Bin: bin, NoKey: true, NoGuard: true}, &out, &errb, env(root), time.Now())
			if code != Refused || !strings.Contains(errb.String(), at+" is a symbolic link (to "+target+")") ||
				!strings.Contains(errb.String(), "--follow-symlinks") || !strings.Contains(errb.String(), "nothing was changed") {
				t.Fatalf("exit %d, stderr %q, stdout %q: want 1 naming the link", code, errb.String(), out.String())
			}
			if after := snapshot(t, root); after != before {
				t.Fatalf("files changed:\n--- before\n%s--- after\n%s", before, after)
			}
		})
	}
}

// TestKeyPathSymlinkRefused: a symlink at the signing key's folder in
// $HOME is not written through: the key is not made (exit 1, said).
func TestKeyPathSymlinkRefused(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	proj, home, outside := filepath.Join(root, "proj"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	for _, d := range []string{proj, home, outside} {
		os.MkdirAll(d, 0o755)
	}
	if err := os.Symlink(outside, filepath.Join(home, ".config")); err != nil {
		t.Skip(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	var out, errb bytes.Buffer
	code := Run(Options{Verb: "install", Harness: "gemini", Project: proj, Bin: fakeBin(t)}, &out, &errb, getenv, time.Now())
	if code != Refused || !strings.Contains(errb.String(), filepath.Join(home, ".config")+" is a symbolic link") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatal("a key was written through the link")
	}
	// With --follow-symlinks the key is made where the link points, and
	// stdout says so.
	out.Reset()
	errb.Reset()
	code = Run(Options{Verb: "install", Harness: "gemini", Project: proj, Bin: fakeBin(t), FollowSymlinks: true}, &out, &errb, getenv, time.Now())
	if code != Done || !strings.Contains(out.String(), "following symlink "+filepath.Join(home, ".config")) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if _, err := os.Stat(filepath.Join(outside, "logbook", "signing.key")); err != nil {
		t.Fatal(err)
	}
}

// env gives a $HOME inside the test's directory, so the user-level files
// are the test's own.
func env(root string) func(string) string {
	return func(k string) string {
		if k == "HOME" {
			return filepath.Join(root, "home")
		}
		return ""
	}
}

// snapshot lists every path under root with its kind and content.
func snapshot(t *testing.T, root string) string {
	var b strings.Builder
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(p + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			d, _ := os.Readlink(p)
			b.WriteString(" -> " + d)
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}
