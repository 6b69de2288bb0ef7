package files

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree writes files (path → contents) under a new directory.
func tree(t *testing.T, files map[string]string) string {
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func paths(fs []File) string {
	var out []string
	for _, f := range fs {
		s := f.Path
		if f.Err != "" {
			s += "(" + f.Err + ")"
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestTake(t *testing.T) {
	dir := tree(t, map[string]string{
		"go.mod": "module x\n", "src/a.go": "package a\n", "src/b.go": "package b\n",
		"src/sub/c.go": "package c\n", "src/sub/c.txt": "text", "docs/x.md": "# x", ".hidden/h": "h",
	})
	os.Symlink("src/a.go", filepath.Join(dir, "link.go"))
	os.Symlink("/nonexistent", filepath.Join(dir, "dangling.go"))
	os.Symlink(filepath.Join(dir, "src"), filepath.Join(dir, "docs", "srclink"))
	syscall.Mkfifo(filepath.Join(dir, "docs", "fifo"), 0o644)
	for _, c := range []struct {
		globs []string
		want  string
	}{
		{[]string{"go.mod"}, "go.mod"},
		{[]string{"src/*.go"}, "src/a.go src/b.go"},
		{[]string{"src/**/*.go"}, "src/a.go src/b.go src/sub/c.go"},
		{[]string{"**/*.go"}, "dangling.go(no such file or directory) link.go src/a.go src/b.go src/sub/c.go"},
		{[]string{"src"}, "src/a.go src/b.go src/sub/c.go src/sub/c.txt"},                              // a directory stands for its files
		{[]string{"src/sub", "src/sub/*"}, "src/sub/c.go src/sub/c.txt"},                               // each file once
		{[]string{"docs"}, "docs/fifo(not a regular file) docs/srclink(not a regular file) docs/x.md"}, // the link to a directory is not entered
		{[]string{"nothing/*"}, ""},
		{[]string{"*.{mod,sum}"}, "go.mod"},
		{[]string{filepath.Join(dir, "src", "*.go")}, filepath.Join(dir, "src", "a.go") + " " + filepath.Join(dir, "src", "b.go")},
	} {
		snap, err := Take("--materials", c.globs, dir, 100, false)
		if err != nil {
			t.Errorf("%v: %v", c.globs, err)
			continue
		}
		if got := paths(snap.Files); got != c.want {
			t.Errorf("%v:\n got %s\nwant %s", c.globs, got, c.want)
		}
	}
	snap, _ := Take("--materials", []string{"go.mod"}, dir, 100, false)
	if f := snap.Files[0]; f.Sha256 != sum([]byte("module x\n")) || f.Bytes != 9 {
		t.Errorf("go.mod digest %+v", f)
	}
}
