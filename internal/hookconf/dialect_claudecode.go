package hookconf

func init() { register("claude-code", claudeCodeSpec) }

// claudeCodeSpec is claude-code's hook configuration.
func claudeCodeSpec() *Spec {
	return &Spec{
		Harness:     "claude-code",
		ProjectFile: ".claude/settings.json",
		LocalFile:   ".claude/settings.local.json",
		UserFile:    ".claude/settings.json",
		Root:        `"$CLAUDE_PROJECT_DIR"`,
		Events: func() []Event {
			// Every event Claude Code 2.1.3xx documents but three:
			// WorktreeCreate and WorktreeRemove, whose hooks replace
			// Claude Code's own git worktree handling (a hook that only
			// records would make creating a worktree fail and removing
			// one leave it in place), and MessageDisplay, sent for each
			// piece of streamed text (the final text comes with Stop).
			// record-step reads all three when wired by hand.
			ev := events("SessionEnd", "Setup", "SessionStart", "InstructionsLoaded", "UserPromptSubmit",
				"UserPromptExpansion", "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
				"PermissionRequest", "PermissionDenied", "Notification", "SubagentStart", "SubagentStop",
				"TaskCreated", "TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult",
				"PreModelSwitch", "PostModelSwitch", "CwdChanged", "FileChanged", "DirectoryAdded",
				"ConfigChange", "PreCompact", "PostCompact", "Stop", "StopFailure", "PreSkillShellCommand", "SessionEnd")
			tools := map[string]bool{"PreToolUse": true, "PostToolUse": true, "PostToolUseFailure": true,
				"PermissionRequest": true, "PermissionDenied": true}
			for i := range ev {
				if tools[ev[i].Name] {
					ev[i].Matcher = "*"
				}
			}
			return ev
		}(),
		// SessionEnd hooks get little time (1.5 s unless a hook asks for
		// more); sealing 10,000 steps takes well under a second.
		Handler:    seconds(10, 5),
		CommandKey: "command",
		// Claude Code 2.1.63+ posts the payload itself; it takes no
		// HTTP hook for SessionStart and Setup.
		HTTPHandler: func(url string, seal bool) node {
			t := 10
			if seal {
				t = 5
			}
			// The server's bearer token, when it has one, comes from
			// the agent's environment (Claude Code interpolates only
			// the variables allowedEnvVars names).
			return obj(kv("type", str("http")), kv("url", str(url)), kv("timeout", num(t)),
				kv("headers", obj(kv("Authorization", str("Bearer $LOGBOOK_SERVER_TOKEN")))),
				kv("allowedEnvVars", arr(str("LOGBOOK_SERVER_TOKEN"))))
		},
		NoHTTP: map[string]bool{"SessionStart": true, "Setup": true},
		// Claude Code's managed settings on Linux (the folder can be
		// moved with $CLAUDE_CODE_MANAGED_SETTINGS_PATH, which 2.1.328
		// ignores); with allowManagedHooksOnly it runs no hook from the
		// user's, project's or local settings.
		ManagedFile: "/etc/claude-code/managed-settings.json",
		// Claude Code's settings documentation (code.claude.com/docs/en/settings);
		// on Windows C:\ProgramData\ClaudeCode is no longer read since
		// v2.1.75 (anthropics/claude-code#18720).
		ManagedFiles: map[string]string{
			"darwin":  "/Library/Application Support/ClaudeCode/managed-settings.json",
			"windows": `C:\Program Files\ClaudeCode\managed-settings.json`,
		},
		ManagedOnlyKey: "allowManagedHooksOnly",
	}
}
