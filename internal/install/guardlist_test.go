package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardListHostile: a guard-projects list that cannot be read (past
// maxConfig, a directory, unreadable) is neither overwritten by an
// install nor removed by an uninstall, and the uninstall keeps the guard,
// saying why: the projects it names may still record. Before, either
// read it as empty: an install rewrote it naming itself alone and an
// uninstall deleted it, so the next uninstall took the guard from
// projects that still recorded. A project path holding a newline (which
// would list two paths) is refused.
func TestGuardListHostile(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	mk := func(name string) string {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Join(p, ".logbook", "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, ".logbook", "bin", "record-step"), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := mk("a"), mk("b")
	o := Options{Project: a, GOOS: "linux"}
	path := guardListPath(o, getenv)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// b is listed, past 16 MiB of padding.
	big := strings.Repeat("/nowhere/"+strings.Repeat("x", 100)+"\n", maxConfig/110+10) + b + "\n"
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := listGuard(o, getenv); err == nil {
		t.Error("install over a list it cannot read: no error")
	}
	if got, _ := os.ReadFile(path); string(got) != big {
		t.Errorf("install rewrote a list it could not read: %d bytes left of %d", len(got), len(big))
	}
	listed, others := unlistGuard(o, getenv)
	if len(others) == 0 {
		t.Errorf("uninstall over a list it cannot read: listed %v, no reason to keep the guard", listed)
	}
	if got, _ := os.ReadFile(path); string(got) != big {
		t.Errorf("uninstall rewrote a list it could not read: %d bytes left of %d", len(got), len(big))
	}
	// A directory in the list's place.
	os.Remove(path)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := listGuard(o, getenv); err == nil {
		t.Error("install over a directory: no error")
	}
	if _, others := unlistGuard(o, getenv); len(others) == 0 {
		t.Error("uninstall over a directory: no reason to keep the guard")
	}
	os.Remove(path)
	// A project whose path holds a newline is not listed as two.
	nl := Options{Project: filepath.Join(home, "c\n"+b), GOOS: "linux"}
	if err := listGuard(nl, getenv); err == nil {
		t.Error("a path with a newline: listed")
	}
	if got, _ := os.ReadFile(path); strings.Contains(string(got), b) {
		t.Errorf("a path with a newline listed %q", got)
	}
	// The ordinary case still works: a and b listed, a's uninstall keeps
	// the guard for b, b's removes it.
	for _, p := range []string{a, b} {
		if err := listGuard(Options{Project: p, GOOS: "linux"}, getenv); err != nil {
			t.Fatal(err)
		}
	}
	if listed, others := unlistGuard(o, getenv); !listed || len(others) != 1 || others[0] != b {
		t.Errorf("a's uninstall: %v %q", listed, others)
	}
	if listed, others := unlistGuard(Options{Project: b, GOOS: "linux"}, getenv); !listed || len(others) != 0 {
		t.Errorf("b's uninstall: %v %q", listed, others)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the list after the last uninstall: %v", err)
	}
}
