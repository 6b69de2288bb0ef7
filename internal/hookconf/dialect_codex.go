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
		// Codex sends SessionEnd (0.169 and later) after the Stop of the
		// last turn, and Interrupt, with no Stop, when the user stops a
		// turn (Ctrl-C): each of the three seals, each seal covering
		// every step so far, so the sealed record ends with whichever
		// came last, and an older Codex, which never sends SessionEnd,
		// still has a record at every turn's end.
		Events: func() []Event {
			ev := events("", "SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
				"PostToolUse", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "Interrupt", "SessionEnd")
			for i := range ev {
				ev[i].Seal = ev[i].Name == "Stop" || ev[i].Name == "Interrupt" || ev[i].Name == "SessionEnd"
			}
			return ev
		}(),
		// Codex gives SessionEnd and Interrupt hooks at most 3 s (1 s
		// unless asked) and warns of a longer timeout; a seal takes well
		// under a second (Claude Code's SessionEnd gets 5 s).
		Handler:    seconds(10, 3),
		CommandKey: "command",
		Notes: []string{
			"Codex asks you to review and trust new hooks before they run (and older builds need `codex_hooks = true` under [features] in config.toml).",
		},
	}
}
