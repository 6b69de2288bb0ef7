package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
)

// TestRealClaudeCodeServer: the real Claude Code CLI, driven by a fake
// Anthropic API on 127.0.0.1, records through HTTP hooks into a
// logbook-server that requires a bearer token, sent by the hooks from
// $LOGBOOK_SERVER_TOKEN (record-step install --server), which seals at
// SessionEnd; the record verifies with the server's checkpoint at level
// server, nothing lands in the project, and no hook output reaches the
// model.
func TestRealClaudeCodeServer(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	dir := t.TempDir()
	// The server wants a token: the hooks send $LOGBOOK_SERVER_TOKEN.
	token := filepath.Join(dir, "token")
	if out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-token", token).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	tok, _ := os.ReadFile(token)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--log-level", "debug", "--token-file", token)
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{proj, filepath.Join(proj, ".logbook", "bin")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("some notes\n"), 0o644)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "claude-code", "--project", proj, "--server", s.url)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install --server: %v\n%s", err, out)
	}
	settings, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if !strings.Contains(string(settings), `"type": "http"`) || strings.Contains(string(settings), "logbook-seal") {
		t.Fatalf("settings:\n%s", settings)
	}
	calls := [][]fakemodel.ToolCall{
		{
			{ID: "toolu_s1bash", Name: "Bash", Input: raw(`{"command":"echo hello","description":"say hello"}`)},
			{ID: "toolu_s2read", Name: "Read", Input: raw(`{"file_path":"` + proj + `/notes.txt"}`)},
		},
		{{ID: "toolu_s3write", Name: "Write", Input: raw(`{"file_path":"` + proj + `/out.txt","content":"hello\n"}`)}},
		{{ID: "toolu_s4fail", Name: "Bash", Input: raw(`{"command":"GITHUB_TOKEN=` + plantedSecret + ` sh -c 'exit 3'"}`)}},
	}
	script := &fakemodel.Script{}
	for _, c := range calls {
		script.Turns = append(script.Turns, fakemodel.Turn{Text: "Working.", Calls: c})
	}
	model, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "do the work", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=",
		"LOGBOOK_SERVER_TOKEN="+strings.TrimSpace(string(tok)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out, &res); res.SessionID == "" {
		t.Fatalf("no session id in %s", out)
	}
	// The SessionEnd hook is an HTTP hook: the server seals on it.
	authGet := func(path string) (int, []byte) {
		req, _ := http.NewRequest("GET", s.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	if code, _ := http.Get(s.url + "/v1/sessions/x/record"); code == nil || code.StatusCode != 401 {
		t.Fatalf("the record route answers without the token: %v", code)
	}
	var rec []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, b := authGet("/v1/sessions/" + res.SessionID + "/record"); code == 200 {
			rec = b
			break
		}
	}
	if rec == nil {
		t.Fatalf("the server sealed nothing for %s:\n%s", res.SessionID, s.stderr)
	}
	recFile, cpFile := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.checkpoint")
	os.WriteFile(recFile, rec, 0o644)
	_, cpText := authGet("/v1/sessions/" + res.SessionID + "/checkpoint")
	os.WriteFile(cpFile, cpText, 0o644)
	vout, _ := exec.Command(filepath.Join(bin, "logbook-verify"), "--json", "--pubkey", s.pub, "--checkpoint", cpFile, "--checkpoint-key", s.vkey, recFile).Output()
	var v cpVerdict
	if err := json.Unmarshal(vout, &v); err != nil || !v.OK || v.level() != "server" {
		t.Fatalf("verify: %s", vout)
	}
	if strings.Contains(string(rec), plantedSecret) {
		t.Error("the planted secret is in the record in clear")
	}
	// Every scripted tool call is in the record, and the session's events
	// came both ways: SessionStart by record-step --server, the rest by
	// HTTP hooks.
	r, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: 64})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	events := map[string]int{}
	for _, st := range r.Get("steps").Items {
		d := st.Get("data")
		id, _ := d.GetString("toolUseId")
		seen[id] = true
		ev, _ := d.GetString("event")
		events[ev]++
	}
	for _, turn := range calls {
		for _, c := range turn {
			if !seen[c.ID] {
				t.Errorf("tool call %s is not in the record", c.ID)
			}
		}
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"} {
		if events[ev] == 0 {
			t.Errorf("no %s step (events: %v)", ev, events)
		}
	}
	// Nothing was recorded in the project, the agent's reach.
	if files, _ := filepath.Glob(filepath.Join(proj, ".logbook", "*.steps.jsonl")); len(files) > 0 {
		t.Errorf("a journal in the project: %v", files)
	}
	checkModelSawNoHookOutput(t, "claude-code 2.1.328 via logbook-server", model)
	report(t, fmt.Sprintf("real Claude Code 2.1.328 through logbook-server HTTP hooks: %d steps (%v), sealed by the server, verified at level server", *v.StepCount, events))
}
