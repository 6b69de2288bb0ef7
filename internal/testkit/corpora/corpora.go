// Package corpora finds the third-party test data that the repository does
// not carry: the public corpora (JSONTestSuite, RFC 8785, Ed25519 vectors,
// agent transcripts, gitleaks cases), the real hook payloads and runback
// cassettes, and the normative spec. They live in a folder laid out like
// this:
//
//	corpora/  jsontestsuite/ jcs/ ed25519/ agent-sessions/ gitleaks/
//	samples/  hooks/<harness>/ runback/
//	spec/     record-format.md
//
// That folder is $LOGBOOK_CORPORA when set, else ../shared beside the module
// root (the checkout's parent folder). A clone with neither still passes its
// own tests: a conformance test asks for its data with [Require], which,
// when the data is absent, says so in one line (the test log and the report
// scripts/test.sh prints) and skips that test alone.
//
// Setting LOGBOOK_REQUIRE_CORPORA=1 turns absence into a failure; CI sets it
// for the run with ../shared, so the conformance tests cannot stop running
// unnoticed.
//
// Tests and tools only: nothing under cmd/ imports it.
package corpora

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// Env names the variable that points at the folder, overriding ../shared.
const Env = "LOGBOOK_CORPORA"

// RequireEnv names the variable that, set to 1, makes absence fail a test.
const RequireEnv = "LOGBOOK_REQUIRE_CORPORA"

var (
	rootOnce sync.Once
	root     string
	rootErr  error
)

// Root returns the folder holding the shared data. ok is false when there
// is none: LOGBOOK_CORPORA unset and no ../shared beside the module root.
// err is set when LOGBOOK_CORPORA names something that is not a folder, a
// mistake that must not pass for absence.
func Root() (dir string, ok bool, err error) {
	rootOnce.Do(func() { root, rootErr = findRoot() })
	return root, root != "", rootErr
}

func findRoot() (string, error) {
	if env := os.Getenv(Env); env != "" {
		abs, err := filepath.Abs(env)
		if err != nil {
			return "", fmt.Errorf("%s=%q: %v", Env, env, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", fmt.Errorf("%s=%q is not a folder", Env, env)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		return abs, nil
	}
	mod, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(mod), "shared")
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		// ../shared is often a symbolic link; walking it needs the target.
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		return dir, nil
	}
	return "", nil
}

// ModuleRoot returns the folder holding go.mod, searched upwards from the
// working directory (a test runs in its package's folder).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("corpora: no go.mod above the working directory")
		}
		dir = up
	}
}

// Find returns the path of rel (slash-separated, e.g.
// "corpora/jsontestsuite") inside the shared folder, and whether it exists.
func Find(rel string) (string, bool) {
	dir, ok, err := Root()
	if !ok || err != nil {
		return "", false
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", false
	}
	return p, true
}

// Require returns the path of rel inside the shared folder. When it is
// absent, it reports one line naming what did not run ("what", e.g.
// "JSONTestSuite: 318 parser cases") and skips the calling test; with
// LOGBOOK_REQUIRE_CORPORA=1 it fails it instead. Call it from the test or
// subtest that holds only the conformance part.
func Require(t testing.TB, rel, what string) string {
	t.Helper()
	p, ok := Optional(t, rel, what)
	if !ok {
		t.SkipNow()
	}
	return p
}

// Optional is Require for a test that has a part of its own besides the
// conformance part: when rel is absent it reports the same one line and
// returns false, and the test goes on without that part.
func Optional(t testing.TB, rel, what string) (string, bool) {
	t.Helper()
	_, _, err := Root()
	if err != nil {
		t.Fatalf("corpora: %v", err)
	}
	if p, ok := Find(rel); ok {
		return p, true
	}
	msg := fmt.Sprintf("conformance not run: %s: %s (no %s in $%s or ../shared)", t.Name(), what, rel, Env)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, and %s=1", msg, RequireEnv)
	}
	testreport.Line(t, msg)
	return "", false
}

// Glob returns the files matching pattern (slash-separated, relative to the
// shared folder), after Require has found the pattern's folder.
func Glob(t testing.TB, pattern, what string) []string {
	t.Helper()
	dir := Require(t, filepath.ToSlash(filepath.Dir(filepath.FromSlash(pattern))), what)
	files, err := filepath.Glob(filepath.Join(dir, filepath.Base(filepath.FromSlash(pattern))))
	if err != nil {
		t.Fatal(err)
	}
	return files
}
