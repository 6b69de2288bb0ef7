package kinds

import "strings"

// gemini: Gemini CLI (names from packages/core/src/tools/tool-names.ts and
// its hooks reference).
var gemini = Dialect{
	Name: "gemini",
	Events: []Event{
		{"BeforeTool", "PreToolUse", ""},
		{"AfterTool", "PostToolUse", ""},
		{"BeforeAgent", "UserPromptSubmit", ""},
		{"AfterAgent", "Stop", ""},
		{"PreCompress", "PreCompact", ""},
		{"BeforeModel", "BeforeModel", ""},
		{"AfterModel", "AfterModel", ""},
		{"BeforeToolSelection", "BeforeToolSelection", ""},
	},
	Tools: []Tool{
		{"run_shell_command", "exec"},
		{"replace", "edit"},
		{"write_file", "write"},
		{"read_file", "read"},
		{"read_many_files", "read"},
		{"list_directory", "read"},
	},
	Fields: Fields{
		// Only Gemini's tool_response reports a failure inside it.
		ToolResult: []FieldKey{{Key: "tool_response", Order: 10}},
		Final:      []FieldKey{{Key: "prompt_response", Order: 30}},
		Path:       []FieldKey{{Key: "absolute_path", Order: 50}},
	},
	Rules: []Rule{
		// A timestamp (Claude Code sends none) and a transcript under
		// ~/.gemini; its own event names are rule 50's.
		{73, func(s Shape) bool {
			return s.Has("timestamp") && strings.Contains(strings.ToLower(transcript(s)), "/.gemini/")
		}},
	},
	StartMessage: true, // reads the common "systemMessage" output field
	// Exit status 2 blocks a BeforeTool call, stderr is the reason.
	Gate: Gate{Form: GateExit2},
}
