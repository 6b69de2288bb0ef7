package corpora

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestModuleRoot(t *testing.T) {
	mod, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mod, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if filepath.Base(filepath.Dir(filepath.Join(mod, "internal", "corpora"))) != "internal" {
		t.Fatal("unexpected layout")
	}
}

// TestFindRootEnv: LOGBOOK_CORPORA wins over ../shared, and a value that is
// not a folder is an error, never taken for absence.
func TestFindRootEnv(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "corpora", "jcs"), 0o755)
	t.Setenv(Env, dir)
	got, err := findRoot()
	if want, _ := filepath.EvalSymlinks(dir); err != nil || got != want {
		t.Fatalf("findRoot = %q, %v; want %q", got, err, dir)
	}
	t.Setenv(Env, filepath.Join(dir, "nosuch"))
	if got, err := findRoot(); err == nil {
		t.Fatalf("findRoot = %q for a missing folder, want an error", got)
	}
}

// TestRequireAbsent: a missing part skips the test with one line in the
// report, or fails it under LOGBOOK_REQUIRE_CORPORA=1.
func TestRequireAbsent(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report")
	t.Setenv("LOGBOOK_TEST_REPORT", report)
	t.Setenv(RequireEnv, "")
	ran := false
	t.Run("inner", func(t *testing.T) {
		Require(t, "corpora/no-such-corpus-here", "nothing at all")
		ran = true
	})
	if ran {
		t.Fatal("Require returned for an absent part")
	}
	b, _ := os.ReadFile(report)
	want := "conformance not run: TestRequireAbsent/inner: nothing at all (no corpora/no-such-corpus-here in $LOGBOOK_CORPORA or ../shared)\n"
	if string(b) != want {
		t.Fatalf("report %q\nwant   %q", b, want)
	}
}

// TestRequireEnvFails: under LOGBOOK_REQUIRE_CORPORA=1 an absent part
// fails the test instead of skipping it (run in a child process, whose
// failure is the expected outcome).
func TestRequireEnvFails(t *testing.T) {
	if os.Getenv("CORPORA_CHILD") == "1" {
		Require(t, "corpora/no-such-corpus-here", "nothing at all")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRequireEnvFails$")
	cmd.Env = append(os.Environ(), "CORPORA_CHILD=1", RequireEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "LOGBOOK_REQUIRE_CORPORA=1") || strings.Contains(string(out), "SKIP") {
		t.Fatalf("want a failure naming %s=1, got %v\n%s", RequireEnv, err, out)
	}
}
