package hookconf

func init() { register("cursor", cursorSpec) }

// cursorSpec is cursor's hook configuration.
func cursorSpec() *Spec {
	return &Spec{
		Harness:     "cursor",
		ProjectFile: ".cursor/hooks.json",
		UserFile:    ".cursor/hooks.json",
		Flat:        true,
		Skeleton:    []member{kv("version", num(1))},
		// The generic tool events cover shell, MCP, read and edit calls:
		// wiring beforeShellExecution and the like as well would record each
		// call twice.
		Events: events("sessionEnd", "sessionStart", "beforeSubmitPrompt", "preToolUse", "postToolUse",
			"postToolUseFailure", "subagentStart", "subagentStop", "preCompact", "afterAgentResponse", "stop", "sessionEnd"),
		Handler:    func(cmd string, _ bool) node { return obj(kv("command", str(cmd))) },
		CommandKey: "command",
		Notes: []string{
			"User-level Cursor hooks run from ~/.cursor: set LOGBOOK_DIR, or records land there.",
		},
	}
}
