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
	Rules: []Rule{
		// hookEventName with a snake_case value (VS Code's are
		// PascalCase, rule 21).
		{20, func(s Shape) bool {
			return s.Has("hookEventName") && s.Event != "" && strings.ToLower(s.Event) == s.Event
		}},
	},
	// Documents no field for a message on screen.
}
