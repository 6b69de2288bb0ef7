package logbook_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLayoutTrue keeps docs/layout.md true both ways: every package of the
// module (a directory, not one holding a module of its own, with Go files outside testdata) is named there by
// its path in backquotes (`internal/x`, `x/`, or, below internal/,
// `x/sub`), and every cmd/ or internal/ path it names exists.
func TestLayoutTrue(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	named := func(p string) bool {
		for _, form := range []string{p, p + "/", strings.TrimPrefix(p, "internal/")} {
			if strings.Contains(text, "`"+form+"`") {
				return true
			}
		}
		return false
	}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // a module of its own (a generator), not one of this module's packages
		}
		goFiles, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if len(goFiles) == 0 || path == "." {
			return nil
		}
		if !named(filepath.ToSlash(path)) {
			t.Errorf("docs/layout.md does not name %s: add a row (or name it in its parent's)", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`((?:cmd|internal)/[A-Za-z0-9_./-]+?)/?`").FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("docs/layout.md names %s, which does not exist", m[1])
		}
	}
}
