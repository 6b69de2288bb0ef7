package hookconf

func init() { register("gemini", geminiSpec) }

// geminiSpec is gemini's hook configuration.
func geminiSpec() *Spec {
	return &Spec{
		Harness:     "gemini",
		ProjectFile: ".gemini/settings.json",
		UserFile:    ".gemini/settings.json",
		Root:        `"$GEMINI_PROJECT_DIR"`,
		// PreCompress is Gemini's PreCompact (Gemini CLI 0.61 sends it
		// before model calls whether or not it compresses: a note each,
		// with its trigger). BeforeModel, AfterModel and
		// BeforeToolSelection are model traffic, once per streamed chunk:
		// not wired.
		Events: events("SessionEnd", "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent",
			"Notification", "PreCompress", "SessionEnd"),
		Handler: func(cmd string, seal bool) node {
			name, t := "logbook-record-step", 10000 // milliseconds
			if seal {
				name, t = "logbook-seal", 30000
			}
			return obj(kv("name", str(name)), kv("type", str("command")), kv("command", str(cmd)), kv("timeout", num(t)))
		},
		CommandKey: "command",
		Notes: []string{
			"Gemini CLI runs project hooks only in a trusted folder (or with GEMINI_CLI_TRUST_WORKSPACE=true); hooks are on by default (hooksConfig.enabled).",
		},
	}
}
