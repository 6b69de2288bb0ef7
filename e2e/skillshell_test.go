package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyGatesSkillShell: Claude Code 2.1.332's PreSkillShellCommand,
// a skill's !`cmd` preamble, meets the rules a Bash call meets: a denied
// one is refused (Claude Code's permissionDecision deny for that event),
// an allowed one runs, both
// are recorded as exec steps after their gate steps, and the sealed record
// verifies under the policy key.
func TestPolicyGatesSkillShell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	signed, pub, digest := signedPolicy(t, dir, orgPolicy)
	data := filepath.Join(dir, "data")
	gate := []string{"--harness", "claude-code", "--policy", signed, "--policy-key", pub}
	skill := func(cmd string) []byte {
		return []byte(`{"session_id":"gated","cwd":"/w","permission_mode":"default","hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"` + cmd + `"},"tool_use_id":"skillsh_` + cmd[:2] + `","command_name":"cleanup","invoked_by":"user"}`)
	}
	gatedStep(t, data, []byte(`{"session_id":"gated","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`), "--harness", "claude-code")
	if r := gatedStep(t, data, skill("rm -rf build"), gate...); r.exit != 0 || !strings.Contains(r.stdout, `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny"`) || !strings.Contains(r.stdout, "recursive force-remove") {
		t.Fatalf("rm -rf in a skill preamble: %+v", r)
	}
	if r := gatedStep(t, data, skill("git status"), gate...); r.exit != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("git status in a skill preamble: %+v", r)
	}
	rec := filepath.Join(dir, "r.json")
	key := filepath.Join(dir, "seal.key")
	run(t, nil, "logbook-seal", "--new-key", key)
	run(t, nil, "logbook-seal", "--dir", data, "--session", "gated", "--key", key, "--out", rec)
	if out, code := verifyArgs(t, "--policy-key", pub, "--require-policy", digest, rec); code != 0 {
		t.Fatalf("verify: %d %s", code, out)
	}
	var got []string
	for _, s := range readRecord(t, rec).Steps {
		ev, _ := s.Data["event"].(string)
		cmd, _ := s.Data["command"].(string)
		if s.Kind == "gate" {
			g, _ := s.Data["gated"].(string)
			d, _ := s.Data["decision"].(string)
			cmd = g + " " + d
		}
		got = append(got, s.Kind+" "+ev+" "+cmd)
	}
	want := "note SessionStart |gate PolicyGate PreSkillShellCommand deny|exec PreSkillShellCommand rm -rf build|gate PolicyGate PreSkillShellCommand allow|exec PreSkillShellCommand git status"
	if strings.Join(got, "|") != want {
		t.Errorf("steps:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
