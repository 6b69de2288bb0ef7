package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// orgPolicy is the policy the policy tests sign: Bash commands with
// rm -rf, and reads of .env files, are denied with a reason.
const orgPolicy = `{"version":"logbook/policy@0","name":"acme-default","default":"allow","onError":"deny",
"rules":[
 {"name":"no-rm-rf","when":"tool == 'Bash' && input.command.matches(r'rm\\s+-[a-zA-Z]*r[a-zA-Z]*f')","decision":"deny","reason":"recursive force-remove is not allowed here; delete files by name"},
 {"name":"no-dotenv","when":"tool in ['Read', 'Edit', 'Write'] && has(input.file_path) && input.file_path.endsWith('.env')","decision":"deny","reason":".env files hold secrets and must not be read by the agent"}
]}`

// signedPolicy signs policy with a new key in dir and returns the signed
// file, the key's .pub and the policy's digest.
func signedPolicy(t testing.TB, dir, policy string) (signed, pub, digest string) {
	t.Helper()
	reapDeciders(t, dir)
	key := filepath.Join(dir, "org-policy.key")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	src := filepath.Join(dir, "policy.json")
	os.WriteFile(src, []byte(policy), 0o644)
	signed = filepath.Join(dir, "policy.signed.json")
	if out, err := exec.Command(filepath.Join(bin, "logbook-policy"), "sign", "--key", key, "--out", signed, src).CombinedOutput(); err != nil {
		t.Fatalf("sign: %v %s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "logbook-policy"), "verify", "--policy-key", key+".pub", signed).Output()
	if err != nil {
		t.Fatalf("verify: %v %s", err, out)
	}
	f := strings.Fields(string(out))
	for i, w := range f {
		if w == "digest" && i+1 < len(f) {
			digest = strings.TrimSuffix(f[i+1], ",")
		}
	}
	return signed, key + ".pub", digest
}

type hookRun struct {
	stdout, stderr string
	exit           int
}

func gatedStep(t *testing.T, dir string, payload []byte, args ...string) hookRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "record-step"), args...)
	cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_CACHE_DIR="+filepath.Join(dir, "cache"))
	cmd.Stdin = bytes.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func policyEvent(event, tool, id, input string) []byte {
	resp := ""
	if strings.HasPrefix(event, "Post") {
		resp = `,"tool_response":"ok"`
	}
	return []byte(fmt.Sprintf(`{"session_id":"gated","cwd":"/w","hook_event_name":%q,"tool_name":%q,"tool_use_id":%q,"tool_input":%s%s}`, event, tool, id, input, resp))
}

func verifyArgs(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(filepath.Join(bin, "logbook-verify"), args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestPolicyGateHook: record-step --policy denies with the harness's
// answer, records a gate step before each PreToolUse, and logbook-verify
// --policy-key accepts the sealed record; another key, another digest,
// hooks that lost --policy and a denied call that ran are each refused by
// name; a broken policy fails closed and says so.
func TestPolicyGateHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	signed, pub, digest := signedPolicy(t, dir, orgPolicy)
	data := filepath.Join(dir, "data")
	gate := []string{"--policy", signed, "--policy-key", pub}
	r := gatedStep(t, data, policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf build"}`), gate...)
	if r.exit != 0 || !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stdout, "recursive force-remove") {
		t.Fatalf("rm -rf: %+v", r)
	}
	r = gatedStep(t, data, policyEvent("PreToolUse", "Read", "t2", `{"file_path":"/w/.env"}`), append(gate, "--harness", "gemini")...)
	if r.exit != 2 || r.stdout != "" || !strings.Contains(r.stderr, ".env files hold secrets") {
		t.Fatalf(".env (Gemini's form: exit 2, stderr): %+v", r)
	}
	r = gatedStep(t, data, policyEvent("PreToolUse", "Bash", "t3", `{"command":"ls"}`), gate...)
	if r.exit != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("ls: %+v", r)
	}
	gatedStep(t, data, policyEvent("PostToolUse", "Bash", "t3", `{"command":"ls"}`))
	rec := filepath.Join(dir, "r.json")
	key := filepath.Join(dir, "seal.key")
	run(t, nil, "logbook-seal", "--new-key", key)
	sealed := run(t, nil, "logbook-seal", "--dir", data, "--session", "gated", "--key", key, "--out", rec)
	if out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec); code != 0 {
		t.Fatalf("verify: %d %s", code, out)
	}
	// The denied calls never ran: no unfinished-call gap (the seal names
	// none in a note), and verify and review say denied.
	checkDenied(t, rec, sealed, "t1")
	other := filepath.Join(dir, "other.key")
	run(t, nil, "logbook-seal", "--new-key", other)
	if out, _ := verifyArgs(t, "--policy-key", other+".pub", rec); !strings.Contains(out, "POLICY_UNTRUSTED") {
		t.Errorf("another key: %s", out)
	}
	if out, _ := verifyArgs(t, "--policy-key", pub, "--require-policy", strings.Repeat("a", 64), rec); !strings.Contains(out, "POLICY_UNTRUSTED") {
		t.Errorf("another digest: %s", out)
	}
	// The hooks lose --policy mid-session.
	gatedStep(t, data, policyEvent("PreToolUse", "Bash", "t4", `{"command":"echo unguarded"}`))
	run(t, nil, "logbook-seal", "--dir", data, "--session", "gated", "--key", key, "--out", rec, "--force")
	if out, code := verifyArgs(t, "--policy-key", pub, rec); code != 1 || !strings.Contains(out, "GATE_MISSING") {
		t.Errorf("hooks without --policy: %d %s", code, out)
	}
	// A denied call that ran anyway (its post-event came).
	data2 := filepath.Join(dir, "data2")
	gatedStep(t, data2, policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf build"}`), gate...)
	gatedStep(t, data2, policyEvent("PostToolUse", "Bash", "t1", `{"command":"rm -rf build"}`))
	run(t, nil, "logbook-seal", "--dir", data2, "--session", "gated", "--key", key, "--out", rec, "--force")
	if out, code := verifyArgs(t, "--policy-key", pub, rec); code != 1 || !strings.Contains(out, "DENIED_CALL_RAN") {
		t.Errorf("denied call ran: %d %s", code, out)
	}
	// A policy edited after signing: fail closed, say so on stderr and in
	// the record; the verifier names POLICY_MISSING.
	b, _ := os.ReadFile(signed)
	bad := filepath.Join(dir, "edited.json")
	os.WriteFile(bad, bytes.Replace(b, []byte("recursive"), []byte("Recursive"), 1), 0o644)
	data3 := filepath.Join(dir, "data3")
	r = gatedStep(t, data3, policyEvent("PreToolUse", "Bash", "t1", `{"command":"ls"}`), "--policy", bad, "--policy-key", pub)
	if !strings.Contains(r.stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.stderr, "POLICY_SIGNATURE") {
		t.Errorf("edited policy: %+v", r)
	}
	if log, _ := os.ReadFile(filepath.Join(data3, "errors.log")); !bytes.Contains(log, []byte("POLICY_SIGNATURE")) {
		t.Errorf("errors.log: %s", log)
	}
	r = gatedStep(t, data3, policyEvent("PreToolUse", "Bash", "t2", `{"command":"ls"}`), "--policy", bad, "--policy-key", pub, "--policy-fail", "allow")
	if r.stdout != "" || r.exit != 0 {
		t.Errorf("--policy-fail allow: %+v", r)
	}
	run(t, nil, "logbook-seal", "--dir", data3, "--session", "gated", "--key", key, "--out", rec, "--force")
	if out, code := verifyArgs(t, "--policy-key", pub, rec); code != 1 || !strings.Contains(out, "POLICY_MISSING") {
		t.Errorf("edited policy: %d %s", code, out)
	}
}

// TestPolicyServerHook: logbook-server --policy answers a denied call's
// HTTP hook with Claude Code's permissionDecision JSON, an allowed one
// with the empty 200, and records the gate steps; the served record
// verifies with --policy-key.
func TestPolicyServerHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, dir, orgPolicy)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--policy", signed, "--policy-key", pub)
	post := func(body []byte) (int, string, http.Header) {
		resp, err := http.Post(s.url+"/v1/hooks/claude-code", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	code, body, h := post(policyEvent("PreToolUse", "Bash", "t1", `{"command":"rm -rf /"}`))
	var ans struct {
		HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
	}
	if json.Unmarshal([]byte(body), &ans); code != 200 || ans.HookSpecificOutput.PermissionDecision != "deny" || h.Get("X-Logbook-Decision") != "deny" {
		t.Fatalf("deny: %d %s %v", code, body, h)
	}
	code, body, h = post(policyEvent("PreToolUse", "Read", "t2", `{"file_path":"/w/notes.txt"}`))
	if code != 200 || body != "" || h.Get("X-Logbook-Decision") != "allow" {
		t.Fatalf("allow: %d %q", code, body)
	}
	post(policyEvent("PostToolUse", "Read", "t2", `{"file_path":"/w/notes.txt"}`))
	if code, body, _ = post([]byte(`{"session_id":"gated","hook_event_name":"SessionEnd","reason":"exit"}`)); code != 200 {
		t.Fatalf("SessionEnd: %d %s", code, body)
	}
	var rec []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(50 * time.Millisecond) {
		if resp, err := readGet(s.url + "/v1/sessions/gated/record"); err == nil {
			if resp.StatusCode == 200 {
				rec, _ = io.ReadAll(resp.Body)
			}
			resp.Body.Close()
		}
	}
	file := filepath.Join(dir, "r.json")
	os.WriteFile(file, rec, 0o644)
	if out, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file); code != 0 {
		t.Fatalf("verify: %s", out)
	}
	if !bytes.Contains(rec, []byte(`"event":"PolicyGate"`)) {
		t.Error("no gate step in the served record")
	}
	checkDenied(t, file, "", "t1")
}

// checkDenied: the sealed record rec counts the calls a gate denied as
// denied, not unfinished: no seal note names them (sealOut is the seal's
// output, "" when the server sealed), logbook-verify --json counts them
// in gaps.deniedToolCalls (ids among them) and no gap, and logbook-review
// shows them as denied, never as unfinished.
func checkDenied(t *testing.T, rec, sealOut string, ids ...string) {
	t.Helper()
	if strings.Contains(sealOut, "unfinished") {
		t.Errorf("seal: %s", sealOut)
	}
	if b, _ := os.ReadFile(rec); bytes.Contains(b, []byte("logbook.unfinishedToolCalls")) {
		t.Error("the record has an unfinished-call note")
	}
	out, _ := verifyArgs(t, "--json", rec)
	var v struct {
		Gaps struct {
			Unfinished int `json:"unfinishedToolCalls"`
			Denied     int `json:"deniedToolCalls"`
			IDs        struct {
				Unfinished, Denied []string
			} `json:"toolUseIds"`
		} `json:"gaps"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if v.Gaps.Unfinished != 0 || v.Gaps.Denied < len(ids) || len(v.Gaps.IDs.Unfinished) != 0 {
		t.Errorf("verify --json gaps: %s", out)
	}
	for _, id := range ids {
		if !slices.Contains(v.Gaps.IDs.Denied, id) {
			t.Errorf("verify --json: %s not named denied: %s", id, out)
		}
	}
	text, _ := verifyArgs(t, rec)
	if strings.Contains(text, "unfinished:") || strings.Contains(text, " 1 unfinished") || !strings.Contains(text, "denied: ") {
		t.Errorf("verify: %s", text)
	}
	rv, err := exec.Command(filepath.Join(bin, "logbook-review"), rec).CombinedOutput()
	if err != nil {
		t.Fatalf("review: %v %s", err, rv)
	}
	if strings.Contains(string(rv), "! unfinished") || !strings.Contains(string(rv), "not run: denied by the organization policy") || !strings.Contains(string(rv), "denied    ") {
		t.Errorf("review: %s", rv)
	}
}
