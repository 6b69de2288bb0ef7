package orgpolicy

import (
	"encoding/json"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
)

// Answer is what a hook tells its harness about a call: stdout (JSON the
// harness reads), stderr and the exit status of a command hook. HTTP is
// the JSON body of an HTTP hook's 200 answer (logbook-server).
type Answer struct {
	Stdout []byte
	Stderr string
	Exit   int
	HTTP   []byte
}

// AnswerFor is the answer each harness understands (docs/policy.md §7),
// in the form its dialect names (kinds.Dialect.Gate, in
// internal/hookevent/kinds/dialect_NAME.go). An allow says nothing: the
// policy does not object, and the harness's own permission rules still
// apply (a hook's "allow" would skip them). Deny blocks the call with the
// reason shown to the model; ask asks the user where the harness can, and
// blocks where it cannot (Codex, Gemini CLI, Grok), saying that approval
// is needed. Not enforced (audit mode): no answer, one stderr line.
func AnswerFor(harness, event string, v Result, enforced bool) Answer {
	if v.Decision == Allow {
		return Answer{}
	}
	reason := v.Reason
	if reason == "" {
		reason = "denied by the organization policy"
	}
	msg := "logbook policy"
	if v.Rule != "" {
		msg += " rule " + v.Rule
	}
	msg += ": " + reason
	if !enforced {
		return Answer{Stderr: "logbook policy (audit mode, not enforced): would " + string(v.Decision) + ": " + reason + "\n"}
	}
	g := kinds.GateOf(harness)
	d := v.Decision
	if d == Hold {
		// Only logbook-server parks a call for an approver (it answers
		// the approver's decision, never a hold); a hook deciding on its
		// own cannot, and fails closed.
		d, msg = Deny, "needs an approver (decided only through logbook-server): "+msg
	}
	if d == Ask && !g.Asks {
		d, msg = Deny, "needs approval: "+msg
	}
	var out any
	switch g.Form {
	case kinds.GateHookSpecific:
		if event == "PermissionRequest" {
			if d == Ask {
				return Answer{} // the harness is asking the user already
			}
			out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest",
				"decision": map[string]any{"behavior": "deny", "message": msg}}}
		} else {
			// PreToolUse's answer; a skill's shell preamble
			// (PreSkillShellCommand, Claude Code 2.1.332) takes the same
			// under its own hookEventName: deny and ask both keep its
			// command from running.
			name := "PreToolUse"
			if event == "PreSkillShellCommand" {
				name = event
			}
			out = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": name,
				"permissionDecision": string(d), "permissionDecisionReason": msg}}
		}
	case kinds.GatePermission:
		out = map[string]any{"permission": string(d), "user_message": msg, "agent_message": msg}
	case kinds.GatePermissionDecision:
		out = map[string]any{"permissionDecision": string(d), "permissionDecisionReason": msg}
	case kinds.GateExit2, kinds.GateNone:
		// GateNone is in no registered dialect (TestDialectsEverywhere);
		// were it met, exit 2 blocks in every harness's hook contract.
		body, _ := json.Marshal(map[string]any{"decision": "deny", "reason": msg})
		return Answer{Stderr: msg + "\n", Exit: 2, HTTP: body}
	}
	// encoding/json only writes this answer; it judges no canonical bytes.
	body, _ := json.Marshal(out)
	return Answer{Stdout: append(body, '\n'), HTTP: body}
}
