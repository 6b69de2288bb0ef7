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
	Fields: Fields{
		Session: []FieldKey{{Key: "conversation_id", Order: 10}}, // on every event, session_id only on some
		Cwd:     []FieldKey{{Key: "workspace_roots", Order: 20, First: true}},
		// Its shell and edit events carry their input at the top level.
		ImpliedInput: []FieldKey{{Key: "command", Order: 10}, {Key: "edits", Order: 20}},
		// MCP results as JSON text, a shell's raw output.
		ToolOutput: []FieldKey{{Key: "tool_output", Order: 40}, {Key: "result_json", Order: 50}, {Key: "output", Order: 60}},
		ToolError:  []FieldKey{{Key: "error_message", Order: 20}},
		Duration:   []FieldKey{{Key: "duration", Order: 20}},
		StopReason: []FieldKey{{Key: "status", Order: 40}},
		TurnID:     []FieldKey{{Key: "generation_id", Order: 50}},
	},
	Rules: []Rule{
		// Fields only Cursor sends (conversation_id on every event).
		{30, func(s Shape) bool {
			return s.Has("conversation_id") || s.Has("cursor_version") || s.Has("workspace_roots")
		}},
	},
	Version: "cursor_version",
	// Its sessionStart output reaches no one on screen.

	// {"permission", "user_message", "agent_message"}; "ask" asks.
	Gate: Gate{Form: GatePermission, Asks: true},
}
