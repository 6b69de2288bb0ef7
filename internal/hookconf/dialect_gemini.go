package hookconf

func init() { register("gemini", geminiSpec) }

// geminiSpec is gemini's hook configuration.
func geminiSpec() *Spec {
	return &Spec{
		Harness:     "gemini",
		ProjectFile: ".gemini/settings.json",
		UserFile:    ".gemini/settings.json",
		Root:        `"$GEMINI_PROJECT_DIR"`,
		// PreCompress is not wired: Gemini CLI 0.61 sends it before every
		// model call, whether or not it compresses, which filled short
		// sessions with notes. BeforeModel, AfterModel and
		// BeforeToolSelection are model traffic, once per streamed chunk.
		Events: events("SessionEnd", "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent",
			"Notification", "SessionEnd"),
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
