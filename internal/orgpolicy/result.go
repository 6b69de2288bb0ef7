package orgpolicy

// GateEvent is data.event of a gate step: a name no harness sends, so a
// gate is never mistaken for the event it gates.
const GateEvent = "PolicyGate"

// Gated reports whether a (canonical) hook event is decided by the policy:
// a tool call, a permission request, and Claude Code's
// PreSkillShellCommand, a skill's shell preamble, which runs a command as
// Bash does (the rules see it as a Bash call).
func Gated(event string) bool {
	return event == "PreToolUse" || event == "PermissionRequest" || event == "PreSkillShellCommand"
}

// Result is the decision for one call.
type Result struct {
	Decision Decision
	Rule     string // the rule that matched (or failed); "" for the default
	Reason   string
	Error    string // a rule's run-time failure, "CODE: detail"; "" when none
}
