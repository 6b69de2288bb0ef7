package orgpolicy

import "encoding/json"

// skillShellAnswer is the answer to Claude Code 2.1.332's
// PreSkillShellCommand (a skill's or slash command's !`cmd` preamble,
// gated as a Bash call): its hookSpecificOutput takes its own
// hookEventName, and deny and ask both keep the command from running (the
// event's schema in 2.1.332; tried with the CLI). ok is false for any
// other event, and in audit mode, which AnswerFor answers as for any call.
func skillShellAnswer(event string, d Decision, msg string, enforced bool) (Answer, bool) {
	if event != "PreSkillShellCommand" || !enforced {
		return Answer{}, false
	}
	// encoding/json only writes this answer; it judges no canonical bytes.
	body, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreSkillShellCommand",
		"permissionDecision": string(d), "permissionDecisionReason": msg}})
	return Answer{Stdout: append(body, '\n'), HTTP: body}, true
}
