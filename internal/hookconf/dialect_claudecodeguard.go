package hookconf

func init() { register("claude-code-guard", claudeCodeGuardSpec) }

// The user-level guard a Claude Code project install adds: Claude
// Code reads hooks only from the directory it starts in, so a
// session started below a recording project would record nothing.
// Before each prompt this walks up from the start directory to
// the first project with logbook's binaries and lets its
// record-step judge (internal/startdir); elsewhere it costs a few
// shell builtins and exits 0.
func claudeCodeGuardSpec() *Spec {
	return &Spec{
		Harness:    "claude-code-guard",
		UserFile:   ".claude/settings.json",
		Events:     []Event{{Name: "UserPromptSubmit"}},
		Handler:    seconds(5, 5),
		CommandKey: "command",
		Fixed:      `d="$CLAUDE_PROJECT_DIR"; while [ -n "$d" ]; do d="${d%/*}"; if [ -x "$d/.logbook/bin/record-step" ]; then exec "$d/.logbook/bin/record-step" guard --harness claude-code-guard ; fi; done; exit 0`,
	}
}
