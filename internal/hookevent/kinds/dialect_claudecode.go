package kinds

// claudeCode: Claude Code's hooks. Its event names are the canonical ones
// (KnownEvents), so it lists none; its payloads carry no mark of their
// own, so it is what no other rule claims.
var claudeCode = Dialect{
	Name: "claude-code",
	Tools: []Tool{
		{"Bash", "exec"},
		{"BashOutput", "exec"},
		{"KillShell", "exec"},
		{"KillBash", "exec"},
		{"PowerShell", "exec"},
		{"Edit", "edit"},
		{"MultiEdit", "edit"},
		{"NotebookEdit", "edit"},
		{"Write", "write"},
		{"Read", "read"},
		{"NotebookRead", "read"},
		{"LS", "read"},
	},
	Fields: Fields{
		TurnID: []FieldKey{{Key: "prompt_id", Order: 10}},
		Path:   []FieldKey{{Key: "notebook_path", Order: 20}}, // NotebookEdit
	},
	Rules: []Rule{
		// Last of all: Claude Code sends no timestamp, no kebab-case or
		// camelCase keys, and names its transcript.
		{100, func(Shape) bool { return true }},
	},
	// "display a message to the user", any hook; also what a hand-wired
	// hook without --harness gets (StartMessage("")).
	StartMessage: true,
	// Its hooks answer with hookSpecificOutput, and it can ask the user.
	Gate: Gate{Form: GateHookSpecific, Asks: true},
}
