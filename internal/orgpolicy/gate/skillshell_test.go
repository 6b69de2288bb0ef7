package gate

import (
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// TestSkillShellGated: Claude Code 2.1.332's PreSkillShellCommand (a
// skill's !`cmd` preamble) is decided by the rules a Bash call meets,
// whether the command comes in tool_input or at the top level, and a deny
// refuses it with Claude Code's answer for that event.
func TestSkillShellGated(t *testing.T) {
	t.Parallel()
	if !kinds.Gated("PreSkillShellCommand") {
		t.Fatal("PreSkillShellCommand is not gated")
	}
	for _, p := range []string{
		`{"session_id":"s","hook_event_name":"PreSkillShellCommand","command_name":"wipe","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"x","invoked_by":"user"}`,
		`{"session_id":"s","hook_event_name":"PreSkillShellCommand","command_name":"wipe","command":"rm -rf /"}`,
	} {
		r := decide(t, examplePolicy, []byte(p))
		if r.Decision != orgpolicy.Deny || r.Rule != "no-rm-rf" {
			t.Errorf("%s: %+v, want deny by no-rm-rf", p, r)
		}
		a := orgpolicy.AnswerFor("claude-code", "PreSkillShellCommand", r, true)
		want := `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"logbook policy rule no-rm-rf: recursive force-remove is not allowed; delete files by name"}}` + "\n"
		if string(a.Stdout) != want || a.Exit != 0 {
			t.Errorf("%s: answer %s exit %d, want %s", p, a.Stdout, a.Exit, want)
		}
	}
	if r := decide(t, examplePolicy, []byte(`{"session_id":"s","hook_event_name":"PreSkillShellCommand","command":"git status"}`)); r.Decision != orgpolicy.Allow {
		t.Errorf("git status: %+v", r)
	}
}
