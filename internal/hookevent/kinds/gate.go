package kinds

import "strings"

// Gate is how a harness's hook tells it that the organization policy
// denies a call or wants a person to approve it (orgpolicy.AnswerFor,
// docs/policy.md §7). Each dialect names its own (Dialect.Gate), and
// TestDialectsEverywhere refuses one that does not: a new harness gets no
// answer by default.
type Gate struct {
	Form GateForm
	// Asks: the harness can ask the user whether a call may run. Where
	// it cannot, an ask is answered as a deny whose reason says that
	// approval is needed.
	Asks bool
}

// GateForm is the shape of a hook's answer to a call it blocks or asks
// about.
type GateForm uint8

const (
	// GateNone is no form at all: the zero value, which no dialect may
	// keep (TestDialectsEverywhere).
	GateNone GateForm = iota
	// GateHookSpecific: Claude Code's JSON on stdout, hookSpecificOutput
	// with a permissionDecision (PreToolUse), or a decision's behavior
	// (PermissionRequest).
	GateHookSpecific
	// GatePermission: Cursor's JSON, "permission" with "user_message"
	// and "agent_message".
	GatePermission
	// GatePermissionDecision: Copilot CLI's JSON, a top-level
	// "permissionDecision" and "permissionDecisionReason".
	GatePermissionDecision
	// GateExit2: no JSON; exit status 2 blocks the call and stderr says
	// why (an exit status cannot ask).
	GateExit2
)

// unknownGate answers a harness no dialect names (a payload detection
// calls "unknown"): exit status 2, which blocks the call in every
// harness's hook contract.
var unknownGate = Gate{Form: GateExit2}

// GateOf is the answer form of a harness as a hook names it: "NAME" or
// session.agent's "NAME VERSION". "" is Claude Code's (record-step with
// no --harness: hooks wired by hand).
func GateOf(harness string) Gate {
	name, _, _ := strings.Cut(harness, " ")
	if name == "" {
		name = claudeCode.Name
	}
	if d := Lookup(name); d != nil {
		return d.Gate
	}
	return unknownGate
}

// Gated reports whether the organization policy decides a (canonical)
// event: a tool call, a permission request, and Claude Code's
// PreSkillShellCommand, a skill's shell preamble, which runs a command as
// Bash does (the rules see it as a Bash call). The one list: the
// installer wires the gate on these events, the gate decides them and
// record-step --fail-closed blocks them when they cannot be recorded.
func Gated(event string) bool {
	return event == "PreToolUse" || event == "PermissionRequest" || event == "PreSkillShellCommand"
}
