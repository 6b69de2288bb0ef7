package kinds

// cursor: Cursor's agent hooks. Its camelCase lifecycle names are Copilot
// CLI's too.
var cursor = Dialect{
	Name: "cursor",
	Events: []Event{
		{"sessionStart", "SessionStart", ""},
		{"sessionEnd", "SessionEnd", ""},
		{"preToolUse", "PreToolUse", ""},
		{"postToolUse", "PostToolUse", ""},
		{"postToolUseFailure", "PostToolUseFailure", ""},
		{"subagentStart", "SubagentStart", ""},
		{"subagentStop", "SubagentStop", ""},
		{"preCompact", "PreCompact", ""},
		{"beforeSubmitPrompt", "UserPromptSubmit", ""},
		{"stop", "Stop", ""},
		{"beforeShellExecution", "PreToolUse", "exec"},
		{"afterShellExecution", "PostToolUse", "exec"},
		{"beforeMCPExecution", "PreToolUse", "tool_call"},
		{"afterMCPExecution", "PostToolUse", "tool_call"},
		{"beforeReadFile", "PreToolUse", "read"},
		{"afterFileEdit", "PostToolUse", "edit"},
		{"afterAgentResponse", "AgentResponse", ""},
		{"afterAgentThought", "AgentThought", ""},
	},
	Tools: []Tool{
		{"Shell", "exec"},
		{"StrReplace", "edit"},
	},
	Rules: []Rule{
		// Fields only Cursor sends (conversation_id on every event).
		{30, func(s Shape) bool {
			return s.Has("conversation_id") || s.Has("cursor_version") || s.Has("workspace_roots")
		}},
	},
	Version: "cursor_version",
	// Its sessionStart output reaches no one on screen.
}
