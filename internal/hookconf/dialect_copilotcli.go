package hookconf

func init() { register("copilot-cli", copilotCliSpec) }

// copilotCliSpec is copilot-cli's hook configuration.
func copilotCliSpec() *Spec {
	return &Spec{
		Harness:     "copilot-cli",
		ProjectFile: ".github/hooks/logbook-copilot-cli.json",
		// User-level hook files load from ~/.copilot/hooks/*.json
		// (GitHub's Copilot CLI hooks reference; $COPILOT_HOME moves it).
		UserFile: ".copilot/hooks/logbook-copilot-cli.json",
		Flat:     true,
		Skeleton: []member{kv("version", num(1))},
		Events: func() []Event {
			ev := events("sessionEnd", "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse",
				"postToolUseFailure", "permissionRequest", "agentStop", "subagentStart", "subagentStop",
				"preCompact", "errorOccurred", "notification", "sessionEnd")
			for i := range ev {
				ev[i].Named = true // camelCase payloads carry no event name
			}
			return ev
		}(),
		Handler: func(cmd string, seal bool) node {
			t := 10
			if seal {
				t = 30
			}
			return obj(kv("type", str("command")), kv("bash", str(cmd)), kv("cwd", str(".")), kv("timeoutSec", num(t)))
		},
		CommandKey: "bash",
		Notes: []string{
			"VS Code also loads .github/hooks/*.json: install only one of copilot-cli and vscode in a repository, or both harnesses record each event twice.",
		},
	}
}
