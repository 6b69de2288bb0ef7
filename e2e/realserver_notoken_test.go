package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
)

// TestRealClaudeCodeServerNoToken: the server wants a token and the real
// Claude Code CLI is started without LOGBOOK_SERVER_TOKEN (issue 23).
// install --server warns, naming the variable; the session still runs,
// and its SessionStart hook answers Claude Code with a systemMessage (the
// field Claude Code shows the user) saying that recording is off and why.
func TestRealClaudeCodeServerNoToken(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-token", token).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--token-file", token)
	proj := filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(proj, ".logbook", "bin"), 0o755)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "claude-code", "--project", proj, "--server", s.url, "--no-guard")
	inst.Env = append(os.Environ(), "LOGBOOK_SERVER_TOKEN=")
	out, err := inst.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "wants a token, and LOGBOOK_SERVER_TOKEN is not set here") {
		t.Fatalf("install --server without the token: %v\n%s", err, out)
	}
	model, err := fakemodel.Anthropic(&fakemodel.Script{Turns: []fakemodel.Turn{{Text: "Done."}}})
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "hello", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "LOGBOOK_SERVER_TOKEN=")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, got)
	}
	text := string(got)
	if !strings.Contains(text, "recording is OFF for this session") || !strings.Contains(text, "LOGBOOK_SERVER_TOKEN is not set") {
		t.Fatalf("Claude Code's output does not carry the session-start notice:\n%s", text)
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "recording is OFF") {
			t.Logf("%.400s", line) // where Claude Code put it
		}
	}
}
