package hookevent

// toolKinds maps a harness's tool name to a step kind (spec §8): shell →
// exec, file edit → edit, file creation/overwrite → write, file read →
// read. Every tool not listed (search, web, MCP, sub-agents, task lists) is
// a tool_call. One table for every harness, so the mapping stays in one
// place.
var toolKinds = map[string]string{
	// Claude Code
	"Bash":         "exec",
	"BashOutput":   "exec",
	"KillShell":    "exec",
	"KillBash":     "exec",
	"PowerShell":   "exec",
	"Edit":         "edit",
	"MultiEdit":    "edit",
	"NotebookEdit": "edit",
	"Write":        "write",
	"Read":         "read",
	"NotebookRead": "read",
	"LS":           "read",
}

// ToolKind returns the step kind of a tool call.
func ToolKind(tool string) string {
	if k, ok := toolKinds[tool]; ok {
		return k
	}
	return "tool_call"
}

// eventKinds maps hook events that are not tool calls to kinds: a prompt is
// a note, the agent's stop with its final message a claim, a permission
// decision a gate. Anything else, known or not, is a note.
var eventKinds = map[string]string{
	"UserPromptSubmit":  "note",
	"Stop":              "claim",
	"SubagentStop":      "claim",
	"PermissionRequest": "gate",
	"PermissionDenied":  "gate",
}

// toolEvents are the events that describe one tool call.
var toolEvents = map[string]bool{
	"PreToolUse":         true,
	"PostToolUse":        true,
	"PostToolUseFailure": true,
}

// KnownEvents lists the Claude Code hook events recorded by name; any
// other event is still recorded, as a note that names it.
var KnownEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"Notification", "SubagentStart", "SubagentStop", "PreCompact",
	"PostCompact", "Stop", "StopFailure", "SessionEnd",
}
