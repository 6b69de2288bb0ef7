package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// TestRealCodexPolicyPermissionRequest runs the real Codex CLI's
// interactive interface (the current release, at a pseudo-terminal) with
// approval_policy on-request, where, unlike codex exec, Codex asks before
// a command leaves the sandbox: its PermissionRequest hook, gated by the
// policy's no-escalation rule, denies the escalation before anyone is
// asked; the command does not run, the model is told why, and the record
// holds the PermissionRequest's gate step.
func TestRealCodexPolicyPermissionRequest(t *testing.T) {
	t.Parallel()
	version := codexVersions[0]
	codex := npmTool(t, "@openai/codex@"+version, "codex")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	proj, saved, pub, digest := gatedProject(t, "codex", ".codex/hooks.json", home, codexEvents)
	esc := fakemodel.ToolCall{ID: "call_r1esc", Name: "exec_command", Input: raw(`{"cmd":"echo escalated > escalated.txt","sandbox_permissions":"require_escalated","justification":"write a file"}`)}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Text: "Escalating.", Calls: []fakemodel.ToolCall{esc}}}}
	srv, err := fakemodel.OpenAI(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := `model = "gpt-fake"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true

[projects."` + proj + `"]
trust_level = "trusted"
`
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600)
	master, slave := openPTY(t)
	defer master.Close()
	unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: 160})
	cmd := exec.Command(codex, "--dangerously-bypass-hook-trust", "write the file")
	cmd.Dir = proj
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true}
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "FAKE_OPENAI_API_KEY=sk-fake", "TERM=xterm-256color",
		"LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "RUST_LOG=", "LOGBOOK_CACHE_DIR="+filepath.Join(home, "policy-cache"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				mu.Lock()
				screen.Write(buf[:n])
				mu.Unlock()
				// The interface asks the terminal where its cursor is
				// and for its colours; a terminal answers.
				if bytes.Contains(buf[:n], []byte("\x1b[6n")) {
					master.Write([]byte("\x1b[1;1R"))
				}
			}
			if err != nil {
				return
			}
		}
	}()
	// Done once the model has been sent the escalation's result and the
	// turn's Stop hook has run (the interface then waits for the user):
	// the CLI's session, which it leads, is killed.
	stopped := func() bool {
		files, _ := filepath.Glob(filepath.Join(saved, "p-*"))
		for _, f := range files {
			if p, _ := os.ReadFile(f); bytes.Contains(p, []byte(`"hook_event_name":"Stop"`)) {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if len(srv.Scripted()) >= 2 && stopped() {
			break
		}
	}
	unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	cmd.Wait()
	mu.Lock()
	tail := screen.String()
	mu.Unlock()
	if len(srv.Scripted()) < 2 {
		t.Fatalf("codex %s: the model was not sent the escalation's result (%d scripted requests); the screen ends:\n%q", version, len(srv.Scripted()), clip(tail[max(0, len(tail)-3000):], 3000))
	}
	waitQuiet(saved)
	sent := map[string]int{}
	var sid string
	files, _ := filepath.Glob(filepath.Join(saved, "p-*"))
	for _, f := range files {
		p, _ := os.ReadFile(f)
		var h struct {
			Event   string `json:"hook_event_name"`
			Session string `json:"session_id"`
		}
		json.Unmarshal(p, &h)
		sent[h.Event]++
		if h.Session != "" {
			sid = h.Session
		}
	}
	label := "codex " + version + " (interactive)"
	if sent["PermissionRequest"] == 0 {
		t.Fatalf("%s: no PermissionRequest sent: %v", label, sent)
	}
	if fileExists(filepath.Join(proj, "escalated.txt")) {
		t.Errorf("%s: the escalated command ran", label)
	}
	const reason = "logbook policy rule no-escalation: leaving the sandbox needs the security team"
	var told string
	for _, r := range srv.Scripted() {
		if r.Turn == 1 && strings.Contains(string(r.Body), reason) {
			told = toolResults(string(r.Body))
		}
	}
	if told == "" {
		t.Errorf("%s: the model was not told the reason %q", label, reason)
	}
	key := filepath.Join(home, "seal.key")
	run(t, nil, "logbook-seal", "--new-key", key)
	rec := filepath.Join(proj, ".logbook", sid+".record.json")
	run(t, nil, "logbook-seal", "--dir", filepath.Join(proj, ".logbook"), "--session", sid, "--key", key, "--out", rec, "--force")
	gates := map[string]string{}
	for _, s := range readRecord(t, rec).Steps {
		// Codex's PermissionRequest carries no tool_use_id: its gate step
		// names the call by tool (and the step after it by command).
		if s.Data["event"] != "PolicyGate" {
			continue
		}
		g, _ := s.Data["gated"].(string)
		if s.Data["toolUseId"] == esc.ID || g == "PermissionRequest" && s.Data["toolUseId"] == nil && s.Data["tool"] == "Bash" {
			gates[g], _ = s.Data["decision"].(string)
		}
	}
	if gates["PreToolUse"] != "allow" || gates["PermissionRequest"] != "deny" {
		t.Errorf("%s: gate steps of %s: %v, want PreToolUse allow, PermissionRequest deny", label, esc.ID, gates)
	}
	out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec)
	if code != 0 {
		t.Errorf("%s: verify --policy-key: %d %s", label, code, out)
	}
	// Known gap: with no tool_use_id, the PermissionRequest's denial is
	// not tied to its call, which verify lists as unfinished
	// (docs/policy.md §7).
	unfinished := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "unfinished:") {
			unfinished = strings.TrimSpace(l)
		}
	}
	testreport.Line(t, fmt.Sprintf("%s, approval_policy on-request: events %v; the escalation's PermissionRequest denied by the gate (command not run), the model read %s; gate steps %v; verify: %s; %s",
		label, sent, clip(told, 260), gates, clip(strings.TrimSpace(out), 120), unfinished))
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
