package hookconf

func init() { register("vscode", vscodeSpec) }

// vscodeSpec is vscode's hook configuration.
func vscodeSpec() *Spec {
	return &Spec{
		Harness:     "vscode",
		ProjectFile: ".github/hooks/logbook-vscode.json",
		Flat:        true,
		Skeleton:    []member{kv("version", num(1))},
		// VS Code has no session-end event: Stop (the agent finishing)
		// seals, each seal covering every step so far.
		Events: events("Stop", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
			"PreCompact", "SubagentStart", "SubagentStop", "Stop"),
		Handler: func(cmd string, seal bool) node {
			t := 10
			if seal {
				t = 30
			}
			return obj(kv("type", str("command")), kv("command", str(cmd)), kv("cwd", str(".")), kv("timeout", num(t)))
		},
		CommandKey: "command",
		Notes: []string{
			"Copilot CLI also loads .github/hooks/*.json: install only one of copilot-cli and vscode in a repository, or both harnesses record each event twice.",
		},
	}
}
