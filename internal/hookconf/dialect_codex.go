package hookconf

func init() { register("codex", codexSpec) }

// codexSpec is codex's hook configuration.
func codexSpec() *Spec {
	return &Spec{
		Harness:     "codex",
		ProjectFile: ".codex/hooks.json",
		UserFile:    ".codex/hooks.json",
		// Codex runs hooks in the session's directory, which may be below
		// the project root.
		Root: `"$(git rev-parse --show-toplevel 2>/dev/null || pwd)"`,
		// Codex has no session-end event: the record is sealed at the end
		// of every turn, each seal covering every step so far.
		Events: events("Stop", "SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
			"PostToolUse", "PreCompact", "PostCompact", "Stop"),
		Handler:    seconds(10, 30),
		CommandKey: "command",
		Notes: []string{
			"Codex asks you to review and trust new hooks before they run (and older builds need `codex_hooks = true` under [features] in config.toml).",
		},
	}
}
