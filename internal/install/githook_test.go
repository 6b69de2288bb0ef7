package install

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/githook"
)

// A project install in a git work tree adds the post-commit hook that
// calls the project's own record-step, keeping the user's hook, and
// uninstall puts the user's back (docs/commits.md).
func TestInstallAddsPostCommitHook(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	hooks := filepath.Join(proj, ".git", "hooks")
	mine := "#!/bin/sh\necho mine\n"
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "post-commit"), []byte(mine), 0o755)
	getenv := func(k string) string {
		if k == "HOME" {
			return proj + "/home"
		}
		return ""
	}
	var out, errb bytes.Buffer
	if code := Run(Options{Verb: "install", Harness: "claude-code", Project: proj, Bin: fakeBin(t), NoKey: true, NoGuard: true}, &out, &errb, getenv, time.Now()); code != 0 {
		t.Fatalf("install: %d %s %s", code, out.String(), errb.String())
	}
	hook, _ := os.ReadFile(filepath.Join(hooks, "post-commit"))
	want := filepath.Join(proj, ".logbook", "bin", "record-step")
	if !strings.Contains(string(hook), githook.Marker) || !strings.Contains(string(hook), want) || !strings.Contains(out.String(), "post-commit: names each commit") {
		t.Fatalf("hook %q, output %s", hook, out.String())
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, githook.Chained)); string(b) != mine {
		t.Fatalf("the user's hook: %q", b)
	}
	out.Reset()
	if code := Run(Options{Verb: "uninstall", Harness: "claude-code", Project: proj}, &out, &errb, getenv, time.Now()); code != 0 {
		t.Fatalf("uninstall: %d %s %s", code, out.String(), errb.String())
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "post-commit")); string(b) != mine {
		t.Fatalf("after uninstall: %q (%s)", b, out.String())
	}
}
