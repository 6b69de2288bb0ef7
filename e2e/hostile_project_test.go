package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileProject: an agent, as an unprivileged user (nobody, when the
// test runs as root as on CI; else the test's own user), prepares its own
// project: a FIFO at its session's journal, a symlinked
// .claude/settings.json and a symlinked .logbook pointing outside. The
// built commands, run as that user, lose nothing silently and write
// nothing outside: the event is refused WRITE_FAILED (stderr and
// errors.log, rc 2 under --fail-closed) without waiting on the FIFO;
// install refuses each link (rc 1) and leaves the targets as they were.
func TestHostileProject(t *testing.T) {
	t.Parallel()
	root, err := os.MkdirTemp("", "logbook-hostile")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	exe := filepath.Join(root, "bin")
	os.Mkdir(exe, 0o755)
	for _, name := range []string{"record-step", "logbook-seal", "logbook-install", "logbook-verify"} {
		b, err := os.ReadFile(filepath.Join(bin, name))
		if err != nil {
			t.Fatal(err)
		}
		writeExe(filepath.Join(exe, name), b)
	}
	var cred *credential
	uid := os.Geteuid()
	if uid == 0 {
		const nobody = 65534
		cred, uid = &credential{Uid: nobody, Gid: nobody}, nobody
	}
	proj, outside := filepath.Join(root, "proj"), filepath.Join(root, "outside")
	as := func(stdin string, name string, args ...string) (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, name, args...)
		runAs(c, cred)
		c.Dir = proj
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"), "CLAUDE_PROJECT_DIR=" + proj}
		c.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		c.Stdout, c.Stderr = &out, &errb
		c.Run()
		if ctx.Err() != nil {
			t.Fatalf("%s %q: still running after 20 s (waiting on a FIFO?)", name, args)
		}
		return c.ProcessState.ExitCode(), out.String(), errb.String()
	}
	for _, d := range []string{proj, outside, filepath.Join(root, "home")} {
		os.Mkdir(d, 0o755)
		os.Chown(d, uid, uid)
	}

	// 1. The agent plants a FIFO at its session's journal.
	if code, _, e := as("", "sh", "-c", "mkdir .logbook && mkfifo .logbook/s1.steps.jsonl"); code != 0 {
		t.Fatalf("plant the FIFO: %d %s", code, e)
	}
	pre := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}}`
	code, _, stderr := as(pre, filepath.Join(exe, "record-step"), "--fail-closed")
	if code != 2 || !strings.Contains(stderr, "WRITE_FAILED") || !strings.Contains(stderr, "named pipe (FIFO), not a regular file") {
		t.Fatalf("record-step --fail-closed on a FIFO: rc %d, stderr %q", code, stderr)
	}
	if log, err := os.ReadFile(filepath.Join(proj, ".logbook", "errors.log")); err != nil || !strings.Contains(string(log), "WRITE_FAILED") {
		t.Fatalf("errors.log: %v %q", err, log)
	}
	// A FIFO where an unsealed-session notice goes: logbook-verify
	// looks there for a missing record, and must not wait on it.
	if code, _, e := as("", "mkfifo", filepath.Join(proj, ".logbook", "s2.unsealed")); code != 0 {
		t.Fatal(e)
	}
	code, _, stderr = as("", filepath.Join(exe, "logbook-verify"), filepath.Join(proj, ".logbook", "s2.record.json"))
	if code != 2 || !strings.Contains(stderr, "no such file") {
		t.Fatalf("verify beside a FIFO notice: rc %d, stderr %q", code, stderr)
	}
	os.RemoveAll(filepath.Join(proj, ".logbook"))

	// 2. A symlinked .claude/settings.json pointing outside the project.
	target := filepath.Join(outside, "settings.json")
	if code, _, e := as("", "sh", "-c", "echo '{}' > "+target+" && mkdir .claude && ln -s "+target+" .claude/settings.json"); code != 0 {
		t.Fatalf("plant the link: %d %s", code, e)
	}
	code, _, stderr = as("", filepath.Join(exe, "logbook-install"), "install", "--harness", "claude-code", "--project", proj, "--no-key", "--no-guard")
	if code != 1 || !strings.Contains(stderr, ".claude/settings.json is a symbolic link (to "+target+")") {
		t.Fatalf("install through a linked settings.json: rc %d, stderr %q", code, stderr)
	}
	code, _, stderr = as("", filepath.Join(exe, "logbook-install"), "uninstall", "--harness", "claude-code", "--project", proj)
	if code != 1 || !strings.Contains(stderr, "is a symbolic link") {
		t.Fatalf("uninstall through a linked settings.json: rc %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(target); string(b) != "{}\n" {
		t.Fatalf("the link's target was written: %q", b)
	}

	// 3. A symlinked .logbook: no binaries copied outside.
	os.RemoveAll(filepath.Join(proj, ".claude"))
	if code, _, e := as("", "ln", "-s", outside, filepath.Join(proj, ".logbook")); code != 0 {
		t.Fatal(e)
	}
	code, _, stderr = as("", filepath.Join(exe, "logbook-install"), "install", "--harness", "gemini", "--project", proj, "--no-key")
	if code != 1 || !strings.Contains(stderr, ".logbook is a symbolic link (to "+outside+")") {
		t.Fatalf("install with a linked .logbook: rc %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "bin")); err == nil {
		t.Fatal("binaries were copied through the link")
	}
	report(t, fmt.Sprintf("hostile project as uid %d: FIFO journal refused WRITE_FAILED rc 2; linked settings.json and .logbook refused by install and uninstall, targets untouched", uid))
}
