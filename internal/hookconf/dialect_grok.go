package hookconf

func init() { register("grok", grokSpec) }

// grokSpec is grok's hook configuration.
func grokSpec() *Spec {
	return &Spec{
		Harness:     "grok",
		ProjectFile: ".grok/hooks/logbook.json",
		UserFile:    ".grok/hooks/logbook.json",
		Root:        `"$GROK_WORKSPACE_ROOT"`,
		Events: events("SessionEnd", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
			"PostToolUseFailure", "PermissionDenied", "Notification", "SubagentStart", "SubagentStop",
			"PreCompact", "PostCompact", "Stop", "StopCancelled", "StopFailure", "SessionEnd"),
		Handler:    seconds(10, 30),
		CommandKey: "command",
		Notes: []string{
			"Grok Build runs project hooks only once the project is trusted (/hooks-trust).",
			"Grok Build also runs hooks configured for Claude Code and Cursor: with those installed too, set [compat.claude] hooks = false (and [compat.cursor]) in ~/.grok/config.toml, or each event is recorded twice.",
		},
	}
}
