package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// relayPolicy denies any call whose input holds a command with rm -rf,
// whatever the harness names its shell tool.
const relayPolicy = `{"version":"logbook/policy@0","name":"relay","default":"allow","onError":"deny",
"rules":[{"name":"no-rm-rf","when":"has(input.command) && input.command.matches(r'rm\\s+-[a-zA-Z]*r[a-zA-Z]*f')","decision":"deny","reason":"recursive force-remove is not allowed here; delete files by name"}]}`

// relayEvent is a hook payload of harness's own dialect: the call
// (pre: its PreToolUse, else its PostToolUse) of command, or (command
// "") the session's end.
func relayEvent(harness, session, id, command string, pre bool) []byte {
	cmd, _ := json.Marshal(command)
	switch harness {
	case "gemini":
		ev, extra := "AfterTool", `,"tool_response":{"llmContent":"ok"}`
		if pre {
			ev, extra = "BeforeTool", ""
		}
		if command == "" {
			return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/chat.json","cwd":"/w","hook_event_name":"SessionEnd","timestamp":"2026-05-14T10:02:42.577Z","reason":"exit"}`, session))
		}
		return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/chat.json","cwd":"/w","hook_event_name":%q,"timestamp":"2026-05-14T10:02:19.361Z","tool_name":"run_shell_command","tool_input":{"command":%s}%s}`, session, ev, cmd, extra))
	case "codex":
		ev, extra := "PostToolUse", `,"tool_response":"ok"`
		if pre {
			ev, extra = "PreToolUse", ""
		}
		if command == "" {
			return []byte(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/rollout.jsonl","cwd":"/w","hook_event_name":"SessionEnd","model":"gpt-5.1-codex","reason":"exit"}`, session))
		}
		return []byte(fmt.Sprintf(`{"session_id":%q,"turn_id":"1","transcript_path":"/tmp/rollout.jsonl","cwd":"/w","hook_event_name":%q,"model":"gpt-5.1-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":%s},"tool_use_id":%q%s}`, session, ev, cmd, id, extra))
	default:
		if command == "" {
			return []byte(fmt.Sprintf(`{"session_id":%q,"cwd":"/w","hook_event_name":"SessionEnd","reason":"exit"}`, session))
		}
		ev := "PostToolUse"
		if pre {
			ev = "PreToolUse"
		}
		b := policyEvent(ev, "Bash", id, `{"command":`+string(cmd)+`}`)
		return bytes.Replace(b, []byte(`"session_id":"gated"`), []byte(`"session_id":"`+session+`"`), 1)
	}
}

// hookStep runs record-step with args and env on payload.
func hookStep(t *testing.T, payload []byte, env []string, args ...string) hookRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "record-step"), args...)
	cmd.Env = append(os.Environ(), env...)
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

// TestPolicyServerRelay: command hooks through logbook-server --policy
// (record-step --server, as installed for Gemini CLI, Codex, and Claude
// Code with --command-hooks) enforce the server's policy: a denied
// `rm -rf` gets the harness's own deny form from record-step, byte for
// byte what record-step --policy (the local gate) writes for the same
// payload (Claude Code and Codex: the permissionDecision JSON on stdout;
// Gemini: exit 2 and the reason on stderr); the server's record holds
// the gate step and verifies OK with --policy-key (no DENIED_CALL_RAN);
// a squatter answering the PreToolUse in the server's place (an empty
// 200, which says "allow") is not believed with --server-key, and the
// call is blocked under --fail-closed.
func TestPolicyServerRelay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	signed, pub, _ := signedPolicy(t, dir, relayPolicy)
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--policy", signed, "--policy-key", pub)
	resp, err := readGet(s.url + "/v1/key")
	if err != nil {
		t.Fatal(err)
	}
	var key struct {
		PublicKey string `json:"publicKey"`
		Gated     bool   `json:"gated"`
	}
	json.NewDecoder(resp.Body).Decode(&key)
	resp.Body.Close()
	if len(key.PublicKey) != 64 || !key.Gated {
		t.Fatalf("GET /v1/key: %+v", key)
	}
	squat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer squat.Close()
	env := func(d string) []string {
		return []string{"LOGBOOK_DIR=" + d, "LOGBOOK_CACHE_DIR=" + filepath.Join(d, "cache"), "LOGBOOK_POLICYD=off", "LOGBOOK_SERVER_TOKEN="}
	}
	for _, harness := range []string{"claude-code", "gemini", "codex"} {
		session := "relay-" + harness
		hook := []string{"--harness", harness, "--server", s.url, "--server-key", key.PublicKey, "--fail-closed"}
		deny := relayEvent(harness, session, "t1", "rm -rf build", true)
		got := hookStep(t, deny, env(t.TempDir()), hook...)
		local := hookStep(t, deny, env(t.TempDir()), "--harness", harness, "--policy", signed, "--policy-key", pub)
		if got != local {
			t.Errorf("%s: through the server %+v, the local gate %+v", harness, got, local)
		}
		reason := "logbook policy rule no-rm-rf: recursive force-remove is not allowed here"
		switch harness {
		case "gemini":
			if got.exit != 2 || got.stdout != "" || !strings.HasPrefix(got.stderr, reason) {
				t.Errorf("gemini's deny: %+v", got)
			}
		default:
			if got.exit != 0 || !strings.Contains(got.stdout, `"permissionDecision":"deny"`) || !strings.Contains(got.stdout, reason) {
				t.Errorf("%s's deny: %+v", harness, got)
			}
		}
		// The squatter's empty 200 would let the call run.
		if r := hookStep(t, deny, env(t.TempDir()), "--harness", harness, "--server", squat.URL, "--server-key", key.PublicKey, "--fail-closed"); r.exit != 2 ||
			!strings.Contains(r.stderr, "not signed by the pinned server key") {
			t.Errorf("%s, squatter: %+v", harness, r)
		}
		// An allowed call runs; the session ends and the server seals.
		for _, p := range [][]byte{relayEvent(harness, session, "t2", "ls", true), relayEvent(harness, session, "t2", "ls", false), relayEvent(harness, session, "", "", false)} {
			if r := hookStep(t, p, env(t.TempDir()), hook...); r != (hookRun{}) {
				t.Errorf("%s: %s: %+v", harness, p, r)
			}
		}
		var rec []byte
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && rec == nil; time.Sleep(50 * time.Millisecond) {
			if resp, err := readGet(s.url + "/v1/sessions/" + session + "/record"); err == nil {
				if resp.StatusCode == 200 {
					rec, _ = io.ReadAll(resp.Body)
				}
				resp.Body.Close()
			}
		}
		file := filepath.Join(dir, session+".json")
		os.WriteFile(file, rec, 0o644)
		if out, code := verifyArgs(t, "--pubkey", s.pub, "--policy-key", pub, file); code != 0 || strings.Contains(out, "DENIED_CALL_RAN") {
			t.Errorf("%s: verify: %d %s", harness, code, out)
		}
		if !bytes.Contains(rec, []byte(`"event":"PolicyGate"`)) || !bytes.Contains(rec, []byte(`"decision":"deny"`)) {
			t.Errorf("%s: no deny gate step in the served record", harness)
		}
	}
}
