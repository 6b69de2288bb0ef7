package kinds

import "strings"

// grok: Grok Build, snake_case event names in camelCase payloads. It also
// runs hooks configured for Claude Code and Cursor.
var grok = Dialect{
	Name: "grok",
	Events: []Event{
		{"session_start", "SessionStart", ""},
		{"session_end", "SessionEnd", ""},
		{"user_prompt_submit", "UserPromptSubmit", ""},
		{"pre_tool_use", "PreToolUse", ""},
		{"post_tool_use", "PostToolUse", ""},
		{"post_tool_use_failure", "PostToolUseFailure", ""},
		{"permission_denied", "PermissionDenied", ""},
		{"stop", "Stop", ""},
		{"stop_cancelled", "StopCancelled", ""},
		{"stop_failure", "StopFailure", ""},
		{"pre_compact", "PreCompact", ""},
		{"post_compact", "PostCompact", ""},
		{"subagent_start", "SubagentStart", ""},
		{"subagent_stop", "SubagentStop", ""},
		{"notification", "Notification", ""},
	},
	Tools: []Tool{
		{"run_terminal_command", "exec"},
		{"search_replace", "edit"},
		{"read_file", "read"},
		{"list_dir", "read"},
	},
	Fields: Fields{
		Event:            []FieldKey{{Key: "hookEventName", Order: 20}},
		Session:          []FieldKey{{Key: "sessionId", Order: 30}},
		Cwd:              []FieldKey{{Key: "workspaceRoot", Order: 30}},
		ToolName:         []FieldKey{{Key: "toolName", Order: 20}},
		ToolInput:        []FieldKey{{Key: "toolInput", Order: 20}},
		ToolOutput:       []FieldKey{{Key: "toolResult", Order: 20}},
		ToolResult:       []FieldKey{{Key: "toolResult", Order: 20}},
		ToolUseID:        []FieldKey{{Key: "toolUseId", Order: 20}},
		PermissionMode:   []FieldKey{{Key: "permissionMode", Order: 20}},
		Final:            []FieldKey{{Key: "lastAssistantMessage", Order: 20}},
		ErrorDetails:     []FieldKey{{Key: "errorDetails", Order: 10}},
		NotificationType: []FieldKey{{Key: "notificationType", Order: 20}},
		TurnID:           []FieldKey{{Key: "promptId", Order: 40}},
		Path:             []FieldKey{{Key: "target_file", Order: 60}}, // read_file
	},
	Rules: []Rule{
		// hookEventName with a snake_case value (VS Code's are
		// PascalCase, rule 21).
		{20, func(s Shape) bool {
			return s.Has("hookEventName") && s.Event != "" && strings.ToLower(s.Event) == s.Event
		}},
	},
	// Documents no field for a message on screen.

	// Exit status 2 blocks a call, stderr is the reason.
	Gate: Gate{Form: GateExit2},
}
