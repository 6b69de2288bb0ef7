package kinds

import "strings"

// vscode: VS Code's agent hooks (Claude Code's event names in PascalCase;
// it also runs Claude Code's and Copilot CLI's hook files).
var vscode = Dialect{
	Name: "vscode",
	// Model-visible tool names, and the names its hook documentation
	// uses in examples.
	Tools: []Tool{
		{"run_in_terminal", "exec"},
		{"runTerminalCommand", "exec"},
		{"replace_string_in_file", "edit"},
		{"multi_replace_string_in_file", "edit"},
		{"insert_edit_into_file", "edit"},
		{"edit_notebook_file", "edit"},
		{"editFiles", "edit"},
		{"create_file", "write"},
		{"createFile", "write"},
		{"read_file", "read"},
		{"readFile", "read"},
		{"list_dir", "read"},
	},
	Fields: Fields{
		Event: []FieldKey{{Key: "hookEventName", Order: 20}},
		Path:  []FieldKey{{Key: "filePath", Order: 40}},
	},
	Rules: []Rule{
		// hookEventName with a value that is not snake_case (rule 20).
		{21, func(s Shape) bool { return s.Has("hookEventName") }},
		// A timestamp and a transcript of Copilot Chat.
		{71, func(s Shape) bool {
			return s.Has("timestamp") && strings.Contains(strings.ToLower(transcript(s)), "copilot-chat")
		}},
	},
	StartMessage: true, // reads the common "systemMessage" output field
	// It reads Claude Code's hookSpecificOutput, and can ask the user.
	Gate: Gate{Form: GateHookSpecific, Asks: true},
}
