package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// TestRealClaudeCodePolicy runs the real Claude Code CLI, driven by a fake
// Anthropic API, with record-step --policy on its PreToolUse hook: the
// model asks for `rm -rf victim` and a read of .env; both are denied (the
// directory and the file are still there), the model is told why (the
// tool results it is sent back hold the policy's reasons), the record
// holds a gate step before every call, and logbook-verify --policy-key
// accepts it. The session is then resumed with the hooks edited to drop
// --policy, and the resealed record is refused with GATE_MISSING.
func TestRealClaudeCodePolicy(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	home := t.TempDir()
	proj, _ := harnessProject(t, "claude-code", ".claude/settings.json", home, nil)
	b, _ := os.ReadFile(filepath.Join(bin, "logbook-policy"))
	writeExe(filepath.Join(proj, ".logbook", "bin", "logbook-policy"), b)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	run(t, nil, "logbook-seal", "--new-key", key)
	// The policy and its key live outside the project (the agent's reach).
	signed, pub, digest := signedPolicy(t, t.TempDir(), orgPolicy)
	os.MkdirAll(filepath.Join(proj, "victim"), 0o755)
	os.WriteFile(filepath.Join(proj, "victim", "keep.txt"), []byte("keep me\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".env"), []byte("API_TOKEN=do-not-read\n"), 0o600)
	settings := filepath.Join(proj, ".claude", "settings.json")
	plain, _ := os.ReadFile(settings)
	hook := `record-step --harness claude-code`
	gated := setPreToolUse(t, string(plain), hook, hook+` --policy `+signed+` --policy-key `+pub)
	os.WriteFile(settings, []byte(gated), 0o644)

	script := &fakemodel.Script{Turns: []fakemodel.Turn{
		{Text: "Cleaning up.", Calls: []fakemodel.ToolCall{
			{ID: "toolu_p1rm", Name: "Bash", Input: raw(`{"command":"rm -rf victim","description":"remove"}`)},
			{ID: "toolu_p2env", Name: "Read", Input: raw(`{"file_path":"` + proj + `/.env"}`)},
			{ID: "toolu_p3ok", Name: "Bash", Input: raw(`{"command":"echo allowed","description":"say"}`)},
		}},
		{Text: "Stopping."},
		{Text: "Again.", Calls: []fakemodel.ToolCall{{ID: "toolu_p4late", Name: "Bash", Input: raw(`{"command":"echo unguarded"}`)}}},
	}}
	srv, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	claudeRun := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, append(args, "--permission-mode", "bypassPermissions", "--output-format", "json")...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=",
			"LOGBOOK_CACHE_DIR="+filepath.Join(home, "policy-cache"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude: %v\n%s", err, out)
		}
		var res struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(out, &res); res.SessionID == "" {
			t.Fatalf("no session id: %s", out)
		}
		return res.SessionID
	}
	sid := claudeRun("-p", "clean up")
	if _, err := os.Stat(filepath.Join(proj, "victim", "keep.txt")); err != nil {
		t.Errorf("rm -rf ran: %v", err)
	}
	// What the CLI sent back to the model after the tool calls holds the
	// policy's reasons: the model was told why.
	told := map[string]bool{}
	for _, r := range srv.Requests() {
		for _, w := range []string{"recursive force-remove is not allowed here", ".env files hold secrets"} {
			if strings.Contains(string(r.Body), w) {
				told[w] = true
			}
		}
		if strings.Contains(string(r.Body), "do-not-read") {
			t.Error("the .env file's content reached the model")
		}
	}
	if len(told) != 2 {
		t.Errorf("the model was not told both reasons: %v", told)
	}
	rec := filepath.Join(proj, ".logbook", sid+".record.json")
	waitForFile(t, rec)
	steps := readRecord(t, rec).Steps
	decisions := map[string]string{}
	for i, s := range steps {
		if s.Data["event"] == "PolicyGate" {
			id, _ := s.Data["toolUseId"].(string)
			decisions[id], _ = s.Data["decision"].(string)
			if i+1 >= len(steps) || steps[i+1].Data["event"] != "PreToolUse" || steps[i+1].Data["toolUseId"] != id {
				t.Errorf("gate step %d is not right before its call's PreToolUse", s.Seq)
			}
		}
	}
	if decisions["toolu_p1rm"] != "deny" || decisions["toolu_p2env"] != "deny" || decisions["toolu_p3ok"] != "allow" {
		t.Errorf("gate decisions: %v", decisions)
	}
	if out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec); code != 0 {
		t.Fatalf("verify --policy-key: %s", out)
	}
	// The hooks are edited: PreToolUse no longer names the policy. The
	// session goes on (resumed), and its record no longer proves the gate.
	os.WriteFile(settings, plain, 0o644)
	if again := claudeRun("--resume", sid, "-p", "one more thing"); again != sid {
		t.Logf("resumed as %s", again)
	}
	run(t, nil, "logbook-seal", "--dir", filepath.Join(proj, ".logbook"), "--session", sid, "--key", key, "--out", rec, "--force")
	out, code := verifyArgs(t, "--policy-key", pub, rec)
	if code != 1 || !strings.Contains(out, "GATE_MISSING") || !strings.Contains(out, "toolu_p4late") {
		t.Errorf("hooks without the gate: %d %s", code, out)
	}
	testreport.Line(t, fmt.Sprintf("real Claude Code %s under a signed policy: rm -rf and .env denied (files kept, reasons sent to the model), %d gate steps, verify --policy-key OK; hooks edited mid-session: %s",
		strings.TrimPrefix(claudeCodePkg, "@anthropic-ai/claude-code@"), len(decisions), strings.TrimSpace(out)))
}

// setPreToolUse replaces old with new in the PreToolUse hooks' commands of
// a Claude Code settings file, and nowhere else.
func setPreToolUse(t *testing.T, settings, old, new string) string {
	var cfg map[string]any
	if err := json.Unmarshal([]byte(settings), &cfg); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range cfg["hooks"].(map[string]any)["PreToolUse"].([]any) {
		for _, h := range m.(map[string]any)["hooks"].([]any) {
			hm := h.(map[string]any)
			if c, _ := hm["command"].(string); strings.Contains(c, old) {
				hm["command"] = strings.Replace(c, old, new, 1)
				n++
			}
		}
	}
	if n == 0 {
		t.Fatalf("no PreToolUse hook runs %q", old)
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return string(b)
}

// waitForFile waits up to 20 s for a file (the SessionEnd hook seals in the
// background of the CLI's exit).
func waitForFile(t *testing.T, file string) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", file)
}

// TestRealClaudeCodePolicyServer: the same policy decided by
// logbook-server --policy through Claude Code's HTTP hooks: the server's
// answer denies the calls (the directory and .env are kept, the model is
// told why), and the server's sealed record verifies with --policy-key.
func TestRealClaudeCodePolicyServer(t *testing.T) {
	t.Parallel()
	realClaudeCodePolicyServer(t, false)
}

// TestRealClaudeCodePolicyServerCommandHooks: the same with install
// --command-hooks: record-step --server hooks, the server's key pinned,
// PreToolUse --fail-closed; record-step relays the server's deny (the
// permissionDecision JSON) to Claude Code.
func TestRealClaudeCodePolicyServerCommandHooks(t *testing.T) {
	t.Parallel()
	realClaudeCodePolicyServer(t, true)
}

func realClaudeCodePolicyServer(t *testing.T, commandHooks bool) {
	claude := npmTool(t, claudeCodePkg, "claude")
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, t.TempDir(), orgPolicy)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--policy", signed, "--policy-key", pub)
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{filepath.Join(proj, ".logbook", "bin"), filepath.Join(proj, "victim")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "victim", "keep.txt"), []byte("keep me\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".env"), []byte("API_TOKEN=do-not-read\n"), 0o600)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	args := []string{"install", "--harness", "claude-code", "--project", proj, "--server", s.url}
	if commandHooks {
		args = append(args, "--command-hooks")
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), args...)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install --server: %v\n%s", err, out)
	}
	cfg, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if commandHooks && (strings.Contains(string(cfg), `"type": "http"`) || !strings.Contains(string(cfg), "--fail-closed") || !strings.Contains(string(cfg), "--server-key")) {
		t.Fatalf("--command-hooks: not record-step --server hooks, fail-closed and pinned:\n%s", cfg)
	}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Text: "Cleaning up.", Calls: []fakemodel.ToolCall{
		{ID: "toolu_q1rm", Name: "Bash", Input: raw(`{"command":"rm -rf victim"}`)},
		{ID: "toolu_q2env", Name: "Read", Input: raw(`{"file_path":"` + proj + `/.env"}`)},
		{ID: "toolu_q3ok", Name: "Bash", Input: raw(`{"command":"echo allowed"}`)},
	}}}}
	model, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "clean up", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out, &res); res.SessionID == "" {
		t.Fatalf("no session id: %s", out)
	}
	if _, err := os.Stat(filepath.Join(proj, "victim", "keep.txt")); err != nil {
		t.Errorf("rm -rf ran: %v", err)
	}
	told := 0
	for _, r := range model.Requests() {
		if strings.Contains(string(r.Body), "recursive force-remove is not allowed here") && strings.Contains(string(r.Body), ".env files hold secrets") {
			told++
		}
	}
	if told == 0 {
		t.Error("the model was not told the reasons")
	}
	var rec []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(100 * time.Millisecond) {
		if r, err := readGet(s.url + "/v1/sessions/" + res.SessionID + "/record"); err == nil {
			if r.StatusCode == 200 {
				rec, _ = io.ReadAll(r.Body)
			}
			r.Body.Close()
		}
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, rec, 0o644)
	vout, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file)
	if code != 0 {
		t.Fatalf("verify: %s\n%s", vout, s.stderr)
	}
	if n := strings.Count(string(rec), `"decision":"deny"`); n != 2 {
		t.Errorf("%d deny gate steps, want 2", n)
	}
	how := "HTTP hooks"
	if commandHooks {
		how = "record-step --server command hooks (the server's answer relayed)"
	}
	testreport.Line(t, "real Claude Code through logbook-server --policy "+how+": rm -rf and .env denied by the server's answer, record verified with --policy-key")
}

// TestRealGeminiCLIPolicyServer: the real Gemini CLI, its hooks
// installed with record-step install --server against logbook-server
// --policy (record-step --server command hooks, the server's key pinned,
// BeforeTool --fail-closed since the server gates), runs a model that
// asks for `rm -rf victim` and `echo allowed`: the server denies the
// first, record-step relays Gemini's deny (exit 2, the reason on
// stderr), the directory is still there, the model is told the reason,
// and the server's record holds the deny and verifies with --policy-key.
func TestRealGeminiCLIPolicyServer(t *testing.T) {
	t.Parallel()
	gemini := npmTool(t, "@google/gemini-cli@"+geminiCLIVersions[0], "gemini")
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, t.TempDir(), relayPolicy)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--policy", signed, "--policy-key", pub)
	proj, home := filepath.Join(dir, "proj"), filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(proj, ".logbook", "bin"), filepath.Join(proj, "victim"), filepath.Join(home, ".gemini")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "victim", "keep.txt"), []byte("keep me\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "gemini", "--project", proj, "--server", s.url)
	inst.Env = append(os.Environ(), "HOME="+home)
	if out, err := inst.CombinedOutput(); err != nil || !strings.Contains(string(out), "are --fail-closed") {
		t.Fatalf("install --server: %v\n%s", err, out)
	}
	if cfg, _ := os.ReadFile(filepath.Join(proj, ".gemini", "settings.json")); !strings.Contains(string(cfg), "--server-key") || !strings.Contains(string(cfg), "--fail-closed") {
		t.Fatalf("the hooks pin no key or do not fail closed:\n%s", cfg)
	}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Calls: []fakemodel.ToolCall{
		{Name: "run_shell_command", Input: raw(`{"command":"rm -rf victim"}`)},
	}}, {Calls: []fakemodel.ToolCall{
		{Name: "run_shell_command", Input: raw(`{"command":"echo allowed"}`)},
	}}}}
	model, err := fakemodel.Gemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", "clean up", "--yolo", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true", "GOOGLE_GEMINI_BASE_URL="+model.URL,
		"GEMINI_API_KEY=fake-key", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "LOGBOOK_SERVER_TOKEN=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out, &res); res.SessionID == "" {
		t.Fatalf("no session id: %s", out)
	}
	if _, err := os.Stat(filepath.Join(proj, "victim", "keep.txt")); err != nil {
		t.Errorf("rm -rf ran: %v", err)
	}
	told := false
	for _, r := range model.Requests() {
		told = told || strings.Contains(string(r.Body), "recursive force-remove is not allowed here")
	}
	if !told {
		t.Error("the model was not told the reason")
	}
	// Gemini CLI does not await SessionEnd: wait for the server's seal.
	var rec []byte
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(100 * time.Millisecond) {
		if r, err := readGet(s.url + "/v1/sessions/" + res.SessionID + "/record"); err == nil {
			if r.StatusCode == 200 {
				rec, _ = io.ReadAll(r.Body)
			}
			r.Body.Close()
		}
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, rec, 0o644)
	if vout, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file); code != 0 {
		t.Fatalf("verify: %s\n%s", vout, s.stderr)
	}
	if n := strings.Count(string(rec), `"decision":"deny"`); n != 1 {
		t.Errorf("%d deny gate steps, want 1", n)
		for _, r := range model.Requests() {
			t.Logf("request: %.3000s", r.Body)
		}
		t.Logf("record: %.6000s", rec)
	}
	testreport.Line(t, "real Gemini CLI through record-step --server and logbook-server --policy: rm -rf denied by the relayed answer (exit 2), record verified with --policy-key")
}
