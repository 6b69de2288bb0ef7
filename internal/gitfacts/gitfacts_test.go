package gitfacts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A",
		"GIT_COMMITTER_EMAIL=a@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestHeadBeforeAndAfterTheFirstCommit(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "trunk")
	h, err := ReadHead(repo)
	if err != nil || h.Commit != "" || h.Branch != "trunk" || h.Dirty {
		t.Fatalf("empty repository: %+v %v", h, err)
	}
	os.WriteFile(filepath.Join(repo, "f"), []byte("one\n"), 0o644)
	dirty, err := ReadHead(repo)
	if err != nil || !dirty.Dirty || dirty.StatusDigest == h.StatusDigest {
		t.Fatalf("untracked file: %+v %v", dirty, err)
	}
	git(t, repo, "add", "f")
	git(t, repo, "commit", "-qm", "one")
	clean, err := ReadHead(repo)
	if err != nil || clean.Dirty || !IsID(clean.Commit) {
		t.Fatalf("after the commit: %+v %v", clean, err)
	}
	git(t, repo, "checkout", "-q", "--detach")
	if d, _ := ReadHead(repo); d.Branch != "" {
		t.Errorf("detached: branch %q", d.Branch)
	}
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "gone")} {
		if _, err := ReadHead(dir); !errors.Is(err, ErrNotRepo) {
			t.Errorf("%s, outside a repository: %v", dir, err)
		}
	}
}

// A merge has no patch id; a change keeps its patch id across a
// cherry-pick; the diff is never held (patch-id reads it from a pipe).
func TestCommitAndPatchID(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "base")
	git(t, repo, "checkout", "-q", "-b", "side")
	os.WriteFile(filepath.Join(repo, "f"), []byte("f\n"), 0o644)
	git(t, repo, "add", "f")
	git(t, repo, "commit", "-qm", "f")
	side := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "checkout", "-q", "main")
	os.WriteFile(filepath.Join(repo, "g"), []byte("g\n"), 0o644)
	git(t, repo, "add", "g")
	git(t, repo, "commit", "-qm", "g")
	git(t, repo, "cherry-pick", side)
	picked := git(t, repo, "rev-parse", "HEAD")
	a, err := ReadCommit(repo, side)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadCommit(repo, picked)
	if err != nil || a.PatchID == "" || a.PatchID != b.PatchID || a.ID == b.ID || a.Tree == b.Tree || len(b.Parents) != 1 {
		t.Fatalf("cherry-pick: %+v %+v %v", a, b, err)
	}
	git(t, repo, "merge", "-q", "--no-ff", "-m", "merge", "side~0")
	m, err := ReadCommit(repo, "HEAD")
	if err != nil || len(m.Parents) != 2 || m.PatchID != "" {
		t.Fatalf("merge: %+v %v", m, err)
	}
	if _, err := ReadCommit(repo, "nosuch"); err == nil {
		t.Error("a missing revision was read")
	}
}

// A change that differs in whitespace alone is another change: `rm -rf
// /tmp/x` and `rm -rf / tmp/x` must not share a patch id (git patch-id
// --stable strips whitespace, and a commit bound by patch id to a
// record that names the first was accepted for the second).
func TestPatchIDKeepsWhitespace(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "base")
	var ids []string
	for i, body := range []string{"rm -rf /tmp/x\n", "rm -rf / tmp/x\n"} {
		git(t, repo, "checkout", "-q", "-B", fmt.Sprint("b", i), "main")
		os.WriteFile(filepath.Join(repo, "s.sh"), []byte(body), 0o644)
		git(t, repo, "add", "s.sh")
		git(t, repo, "commit", "-qm", "s")
		id := git(t, repo, "rev-parse", "HEAD")
		c, err := ReadCommit(repo, id)
		if err != nil || c.PatchID == "" {
			t.Fatalf("%+v %v", c, err)
		}
		var ranged string
		if err := PatchIDs(repo, "main..HEAD", func(_, p string) error { ranged = p; return nil }); err != nil || ranged != c.PatchID {
			t.Fatalf("PatchIDs %q %v, ReadCommit %q", ranged, err, c.PatchID)
		}
		ids = append(ids, c.PatchID)
	}
	if ids[0] == ids[1] {
		t.Fatalf("whitespace-only different changes share patch id %s", ids[0])
	}
}

// Every output is bounded: more than the limit is ErrTooLong, a line
// over the limit too, and a blob over max is skipped, not read.
func TestBounded(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	big := bytes.Repeat([]byte("x"), 1<<20)
	os.WriteFile(filepath.Join(repo, "big"), big, 0o644)
	id := git(t, repo, "hash-object", "-w", "big")
	small := git(t, repo, "hash-object", "-w", "--stdin")
	if _, err := Output(repo, 1000, "cat-file", "blob", id); !errors.Is(err, ErrTooLong) {
		t.Errorf("Output over the limit: %v", err)
	}
	if err := Lines(repo, 100, func(string) error { return nil }, "cat-file", "blob", id); !errors.Is(err, ErrTooLong) {
		t.Errorf("a long line: %v", err)
	}
	var got []string
	err := Objects(repo, []string{id, small, strings.Repeat("0", 40)}, 4096, func(oid, typ string, size int64, content []byte) {
		got = append(got, typ)
		if oid == id && (content != nil || size != 1<<20) {
			t.Errorf("the large blob: %d bytes read, size %d", len(content), size)
		}
	})
	if err != nil || strings.Join(got, ",") != "blob,blob,missing" {
		t.Fatalf("Objects: %v %v", got, err)
	}
}
