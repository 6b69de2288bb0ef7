package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// realPolicy is orgPolicy's two rules under the names the real Gemini CLI
// and Codex CLI give the calls: Gemini's run_shell_command and read_file,
// and Codex's shell (which it reports to hooks as Bash, its input a
// command string). Codex has no read tool: a read of .env is a shell
// command naming it, denied by the third rule with the same reason.
const realPolicy = `{"version":"logbook/policy@0","name":"acme-real","default":"allow","onError":"deny",
"rules":[
 {"name":"no-rm-rf","when":"tool in ['Bash', 'run_shell_command'] && has(input.command) && input.command.matches(r'rm\\s+-[a-zA-Z]*r[a-zA-Z]*f')","decision":"deny","reason":"recursive force-remove is not allowed here; delete files by name"},
 {"name":"no-dotenv","when":"tool in ['Read', 'Edit', 'Write', 'read_file', 'write_file', 'replace'] && has(input.file_path) && input.file_path.endsWith('.env')","decision":"deny","reason":".env files hold secrets and must not be read by the agent"},
 {"name":"no-dotenv-shell","when":"tool in ['Bash', 'run_shell_command'] && has(input.command) && input.command.matches(r'(^|[\\s/])\\.env\\b')","decision":"deny","reason":".env files hold secrets and must not be read by the agent"},
 {"name":"no-escalation","when":"event == 'PermissionRequest'","decision":"deny","reason":"leaving the sandbox needs the security team"}
]}`

var policyReasons = []string{"recursive force-remove is not allowed here", ".env files hold secrets"}

// gatedProject is harnessProject with the hooks install writes under
// realPolicy (record-step install --policy --policy-key
// --require-policy), a directory the model will try to remove and a .env
// it will try to read.
func gatedProject(t *testing.T, harness, settings, home string, events []string) (proj, saved, pub, digest string) {
	signed, pub, digest := signedPolicy(t, t.TempDir(), realPolicy)
	proj, saved = harnessProject(t, harness, settings, home, events, "--policy", signed, "--policy-key", pub, "--require-policy", digest)
	b, _ := os.ReadFile(filepath.Join(proj, settings))
	if !strings.Contains(string(b), "--policy "+signed) {
		t.Fatalf("install --policy wrote no gated hook into %s:\n%s", settings, b)
	}
	os.MkdirAll(filepath.Join(proj, "victim"), 0o755)
	os.WriteFile(filepath.Join(proj, "victim", "keep.txt"), []byte("keep me\n"), 0o644)
	os.WriteFile(filepath.Join(proj, ".env"), []byte("API_TOKEN=do-not-read\n"), 0o600)
	return proj, saved, pub, digest
}

// checkGated holds a real harness's gated session to what the policy
// promises: the denied calls did not run (victim/ and .env are there,
// .env's content never reached the model), the allowed one did (ran.txt),
// the model's request after the denied calls carries both reasons, the
// sealed record holds a gate step right before each call's PreToolUse
// with the expected decision, and logbook-verify --policy-key
// --require-policy accepts it. want maps a call (by key) to its decision;
// key names a step's call (its toolUseId, or its input digest where the
// harness sends no id).
func checkGated(t *testing.T, label, proj, rec, pub, digest string, srv *fakemodel.Server, deniedTurn int,
	want map[string]string, key func(data map[string]any, inputs []string) string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(proj, "victim", "keep.txt")); err != nil {
		t.Errorf("%s: rm -rf ran: %v", label, err)
	}
	if _, err := os.Stat(filepath.Join(proj, "ran.txt")); err != nil {
		t.Errorf("%s: the allowed call did not run: %v", label, err)
	}
	told := map[string]bool{}
	var next string
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "do-not-read") {
			t.Errorf("%s: the .env file's content reached the model (request %s, turn %d)", label, r.Path, r.Turn)
		}
		if !r.Scripted || r.Turn != deniedTurn {
			continue
		}
		next = string(r.Body)
		for _, w := range policyReasons {
			if strings.Contains(string(r.Body), w) {
				told[w] = true
			}
		}
	}
	if len(told) != len(policyReasons) {
		next = toolResults(next)
		t.Errorf("%s: the model's request after the denied calls (turn %d) does not carry both reasons: %v; its end:\n%s", label, deniedTurn, told, next)
	}
	steps := readRecord(t, rec).Steps
	got := map[string]string{}
	for i, s := range steps {
		if s.Data["event"] != "PolicyGate" {
			continue
		}
		k := key(s.Data, s.Inputs)
		got[k], _ = s.Data["decision"].(string)
		if s.Kind != "gate" || s.Data["policy"] != digest || s.Data["enforced"] != true {
			t.Errorf("%s: gate step %d: kind %q, policy %v, enforced %v", label, s.Seq, s.Kind, s.Data["policy"], s.Data["enforced"])
		}
		if i+1 >= len(steps) || steps[i+1].Data["event"] != "PreToolUse" || key(steps[i+1].Data, steps[i+1].Inputs) != k {
			t.Errorf("%s: gate step %d is not right before its call's PreToolUse", label, s.Seq)
		}
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("%s: call %s: gate decision %q, want %q (all: %v)", label, k, got[k], d, got)
		}
	}
	out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec)
	if code != 0 {
		t.Errorf("%s: verify --policy-key: %d %s", label, code, out)
	}
	testreport.Line(t, fmt.Sprintf("%s under a signed policy (record-step install --policy): rm -rf and .env denied (files kept, both reasons in the model's next request), allowed call ran, %d gate steps, verify --policy-key --require-policy: %s",
		label, len(got), clip(strings.TrimSpace(out), 200)))
}

// TestRealGeminiPolicy runs the real Gemini CLI (each pinned release)
// under the hooks record-step install --policy writes: the model asks for
// `rm -rf victim` and a read of .env, then an allowed command; the gate's
// exit 2 blocks the first two, and the CLI sends the model the reasons.
func TestRealGeminiPolicy(t *testing.T) {
	t.Parallel()
	eachRelease(t, "@google/gemini-cli", geminiCLIVersions, realGeminiPolicy)
}

func realGeminiPolicy(t *testing.T, pkg, version string) {
	gemini := npmTool(t, pkg, "gemini")
	home := t.TempDir()
	proj, saved, pub, digest := gatedProject(t, "gemini", ".gemini/settings.json", home, []string{"BeforeTool", "AfterTool"})
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	run(t, nil, "logbook-seal", "--new-key", key)
	// Gemini CLI 0.61 refuses its own file tools any path with a .env
	// segment (hasBlockedPathSegment: "Path not in workspace"), before
	// BeforeTool: read_file .env never reaches the gate. A shell read of
	// .env, and read_file of another file the rule names (prod.env), do.
	os.WriteFile(filepath.Join(proj, "prod.env"), []byte("PROD_TOKEN=do-not-read\n"), 0o600)
	rm := fakemodel.ToolCall{Name: "run_shell_command", Input: raw(`{"command":"rm -rf victim"}`)}
	builtin := fakemodel.ToolCall{Name: "read_file", Input: raw(`{"file_path":".env"}`)}
	cat := fakemodel.ToolCall{Name: "run_shell_command", Input: raw(`{"command":"cat .env"}`)}
	env := fakemodel.ToolCall{Name: "read_file", Input: raw(`{"file_path":"prod.env"}`)}
	ok := fakemodel.ToolCall{Name: "run_shell_command", Input: raw(`{"command":"echo allowed > ran.txt"}`)}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Calls: []fakemodel.ToolCall{rm, builtin, cat, env}}, {Calls: []fakemodel.ToolCall{ok}}}}
	srv, err := fakemodel.Gemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", "clean up", "--yolo", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true", "GOOGLE_GEMINI_BASE_URL="+srv.URL,
		"GEMINI_API_KEY=fake-key", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "LOGBOOK_CACHE_DIR="+filepath.Join(home, "policy-cache"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gemini: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(out, &res); res.SessionID == "" {
		t.Fatalf("no session id: %s", out)
	}
	waitQuiet(saved)
	rec := filepath.Join(proj, ".logbook", res.SessionID+".record.json")
	run(t, nil, "logbook-seal", "--dir", filepath.Join(proj, ".logbook"), "--session", res.SessionID, "--key", key, "--out", rec, "--force")
	// Gemini CLI sends no tool call id: a call is named by its input's
	// digest, which the gate step and the PreToolUse step both carry.
	byInput := func(_ map[string]any, inputs []string) string {
		if len(inputs) == 0 {
			return ""
		}
		return inputs[0]
	}
	want := map[string]string{inputDigest(t, rm.Input): "deny", inputDigest(t, cat.Input): "deny", inputDigest(t, env.Input): "deny",
		inputDigest(t, ok.Input): "allow", inputDigest(t, builtin.Input): ""}
	checkGated(t, "gemini-cli "+version, proj, rec, pub, digest, srv, 1, want, byInput)
	checkTold(t, "gemini-cli "+version, srv, "Tool execution blocked: logbook policy rule no-rm-rf: recursive force-remove")
	refused := false
	for _, r := range srv.Scripted() {
		if r.Turn == 1 && strings.Contains(string(r.Body), `Path not in workspace: Attempted path \"`+filepath.Join(proj, ".env")+`\"`) {
			refused = true
		}
	}
	if !refused {
		t.Errorf("gemini-cli %s: read_file .env was not refused by the CLI itself (its own .env rule)", version)
	}
}

// TestRealCodexPolicy runs the real Codex CLI (each pinned release) under
// the hooks record-step install --policy writes: the model asks for
// `rm -rf victim` and `cat .env` through exec_command (which Codex reports
// to hooks as Bash), then an allowed command; the gate's permissionDecision
// deny blocks the first two, and Codex sends the model the reasons.
func TestRealCodexPolicy(t *testing.T) {
	t.Parallel()
	eachRelease(t, "@openai/codex", codexVersions, realCodexPolicy)
}

func realCodexPolicy(t *testing.T, pkg, version string) {
	codex := npmTool(t, pkg, "codex")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	proj, saved, pub, digest := gatedProject(t, "codex", ".codex/hooks.json", home, codexEvents)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	run(t, nil, "logbook-seal", "--new-key", key)
	rm := fakemodel.ToolCall{ID: "call_p1rm", Name: "exec_command", Input: raw(`{"cmd":"rm -rf victim"}`)}
	env := fakemodel.ToolCall{ID: "call_p2env", Name: "exec_command", Input: raw(`{"cmd":"cat .env"}`)}
	ok := fakemodel.ToolCall{ID: "call_p3ok", Name: "exec_command", Input: raw(`{"cmd":"echo allowed > ran.txt"}`)}
	esc := fakemodel.ToolCall{ID: "call_p4esc", Name: "exec_command", Input: raw(`{"cmd":"echo escalated > escalated.txt","sandbox_permissions":"require_escalated","justification":"write a file"}`)}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{{Text: "Cleaning up.", Calls: []fakemodel.ToolCall{rm, env}}, {Text: "Now this.", Calls: []fakemodel.ToolCall{ok}}},
		Agents: map[string][]fakemodel.Turn{"ESCALATE": {{Text: "Escalating.", Calls: []fakemodel.ToolCall{esc}}}}}
	srv, err := fakemodel.OpenAI(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := `model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
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
	// --dangerously-bypass-hook-trust: as in TestRealCodexCLI, the hooks
	// are the ones install wrote, and a test has no person to review them.
	codexRun := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, codex, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "FAKE_OPENAI_API_KEY=sk-fake",
			"LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "RUST_LOG=", "LOGBOOK_CACHE_DIR="+filepath.Join(home, "policy-cache"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("codex %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	out := codexRun("exec", "--json", "--dangerously-bypass-hook-trust", "clean up")
	var started struct {
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &started)
	if started.ThreadID == "" {
		t.Fatalf("codex exec: no thread.started line:\n%s", out)
	}
	// PermissionRequest: the model asks to leave the sandbox
	// (require_escalated), with approval_policy on-request. codex exec
	// sets the approval policy to never whatever -c says, so Codex
	// refuses the escalation itself and sends no PermissionRequest: the
	// gate on it is not reached by codex exec (docs/harnesses.md).
	codexRun("exec", "resume", "--json", "--dangerously-bypass-hook-trust", "-c", `approval_policy="on-request"`, "-c", `sandbox_mode="workspace-write"`,
		started.ThreadID, "ESCALATE: write it")
	if _, err := os.Stat(filepath.Join(proj, "escalated.txt")); err == nil {
		t.Error("the escalated command ran")
	}
	refused := false
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "approval policy is Never; reject command") {
			refused = true
		}
	}
	waitQuiet(saved)
	sent := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(saved, "p-*"))
	for _, f := range files {
		p, _ := os.ReadFile(f)
		var h struct {
			Event string `json:"hook_event_name"`
		}
		json.Unmarshal(p, &h)
		sent[h.Event]++
	}
	testreport.Line(t, fmt.Sprintf("codex %s under a policy: events sent by name: %v; the escalation (require_escalated, -c approval_policy=on-request) refused by Codex itself: %v", version, sent, refused))
	if sent["PermissionRequest"] != 0 || !refused {
		t.Errorf("codex %s: codex exec sent %d PermissionRequest, refused the escalation itself: %v; docs/harnesses.md says none and yes: the gate on PermissionRequest can now be tested here", version, sent["PermissionRequest"], refused)
	}
	rec := filepath.Join(proj, ".logbook", started.ThreadID+".record.json")
	run(t, nil, "logbook-seal", "--dir", filepath.Join(proj, ".logbook"), "--session", started.ThreadID, "--key", key, "--out", rec, "--force")
	byID := func(data map[string]any, _ []string) string { s, _ := data["toolUseId"].(string); return s }
	want := map[string]string{rm.ID: "deny", env.ID: "deny", ok.ID: "allow"}
	checkGated(t, "codex "+version, proj, rec, pub, digest, srv, 1, want, byID)
	// Codex appends the command to the hook's reason (openai/codex#32573).
	checkTold(t, "codex "+version, srv, "Command blocked by PreToolUse hook: logbook policy rule no-rm-rf: recursive force-remove is not allowed here; delete files by name. Command: rm -rf victim")
}

// checkTold: some request to the model holds the tool result in the
// harness's own wording of a blocked call.
func checkTold(t *testing.T, label string, srv *fakemodel.Server, want string) {
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), want) {
			testreport.Line(t, fmt.Sprintf("%s: the model read %q", label, want))
			return
		}
	}
	t.Errorf("%s: no request to the model holds %q", label, want)
}

// toolResults is what a model request says of the tool calls' results
// (Gemini's functionResponse parts, Codex's function_call_output items),
// each clipped: for a failure's message.
func toolResults(body string) string {
	var b strings.Builder
	for _, mark := range []string{`"functionResponse"`, `"function_call_output"`} {
		for rest := body; ; {
			i := strings.Index(rest, mark)
			if i < 0 {
				break
			}
			b.WriteString(clip(rest[i:], 600) + "\n")
			rest = rest[i+len(mark):]
		}
	}
	return b.String()
}
