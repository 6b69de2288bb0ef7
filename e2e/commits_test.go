package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommitsBound: the built commands end to end (docs/commits.md).
// record-step install adds the post-commit hook; a session starts; two
// real git commits run the hook, which runs the project's copy of
// record-step; logbook-seal binds them with git notes; a commit after the
// seal is named nowhere; logbook-verify --commits says which is which.
func TestCommitsBound(t *testing.T) {
	t.Parallel()
	home, repo := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "LOGBOOK_SIGNING_KEY=", "LOGBOOK_DIR=", "CLAUDE_PROJECT_DIR=",
		"LOGBOOK_NOW=2026-05-01T10:00:00Z", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	run := func(stdin, prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Dir, cmd.Env = repo, env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v: %s", prog, args, err, out)
		}
		return string(out)
	}
	run("", "git", "init", "-q", "-b", "main")
	run("", "git", "commit", "-q", "--allow-empty", "-m", "base")
	run("", filepath.Join(bin, "record-step"), "install", "--harness", "claude-code", "--project", repo, "--bin", bin, "--no-key", "--no-guard", "--trailer")
	run("", "git", "add", "-A")
	run("", "git", "commit", "-q", "-m", "logbook hooks")
	run(`{"session_id":"s1","cwd":"`+repo+`","hook_event_name":"SessionStart","source":"startup"}`, filepath.Join(repo, ".logbook", "bin", "record-step"))
	for _, f := range []string{"agent.go", "byhand.go"} {
		os.WriteFile(filepath.Join(repo, f), []byte("package x\n"), 0o644)
		run("", "git", "add", f)
		if out := run("", "git", "commit", "-q", "-m", f); !strings.Contains(out, "logbook: commit named in session s1") {
			t.Fatalf("commit %s: %q", f, out)
		}
	}
	key := filepath.Join(home, "k")
	run("", filepath.Join(bin, "logbook-seal"), "--new-key", key)
	if out := run("", filepath.Join(bin, "logbook-seal"), "--dir", filepath.Join(repo, ".logbook"), "--session", "s1", "--key", key); !strings.Contains(out, "2 commit(s) bound in refs/notes/logbook") {
		t.Fatalf("seal: %q", out)
	}
	os.WriteFile(filepath.Join(repo, "after.go"), []byte("package x\n"), 0o644)
	run("", "git", "add", "after.go")
	if out := run("", "git", "commit", "-q", "-m", "after the session"); strings.Contains(out, "named in session") {
		t.Fatalf("a commit after the seal was named: %q", out)
	}
	// --trailer: the two commits of the session carry its id, the one
	// after it none.
	if log := run("", "git", "log", "--format=%(trailers:key=Logbook-Record,valueonly)%x00", "HEAD~3..HEAD"); log != "\x00\ns1\n\x00\ns1\n\x00\n" {
		t.Fatalf("trailers: %q", log)
	}
	out := run("", filepath.Join(bin, "logbook-verify"), "--commits", "HEAD~3..HEAD", "--records", filepath.Join(repo, ".logbook"), "--pubkey", key+".pub")
	want := regexp.MustCompile(`^[0-9a-f]{40} UNBOUND .*\n[0-9a-f]{40} RECORDED made in session s1 \(record [0-9a-f]{64}, step 3, level local, policy none\)\n[0-9a-f]{40} RECORDED made in session s1 \(record [0-9a-f]{64}, step 2, level local, policy none\)\n$`)
	if !want.MatchString(out) {
		t.Fatalf("logbook-verify --commits:\n%s", out)
	}
	if hook, _ := os.ReadFile(filepath.Join(repo, ".git", "hooks", "post-commit")); !strings.Contains(string(hook), filepath.Join(repo, ".logbook", "bin", "record-step")) {
		t.Fatalf("the hook does not call the project's record-step: %s", hook)
	}
	run("", filepath.Join(bin, "record-step"), "uninstall", "--harness", "claude-code", "--project", repo)
	for _, h := range []string{"post-commit", "commit-msg"} {
		if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", h)); err == nil {
			t.Fatalf("uninstall left the %s hook", h)
		}
	}
}
