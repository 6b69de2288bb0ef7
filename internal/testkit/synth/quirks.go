package synth

import (
	"bytes"
	"sort"
)

// Quirks returns single payloads that pin one harness quirk each, by name
// ("harness/what.json"). Most are events of the Dialect sessions; the rest
// are variants those sessions do not contain.
func Quirks() map[string][]byte {
	q := map[string][]byte{}
	find := func(name, harness string, parts ...string) {
		s, _ := Dialect(harness)
		if harness == "cursor" {
			s = cursorSession(true)
		}
		for _, ev := range s.Events {
			ok := true
			for _, p := range parts {
				ok = ok && bytes.Contains(ev, []byte(p))
			}
			if ok {
				q[name] = ev
				return
			}
		}
		panic("synth: no quirk payload for " + name)
	}
	find("codex/pre-tool-use-apply-patch.json", "codex", `"PreToolUse"`, `"apply_patch"`)
	find("codex/stop.json", "codex", `"Stop"`)
	find("gemini/after-tool-error.json", "gemini", `"AfterTool"`, `"error":{`)
	find("gemini/after-agent.json", "gemini", `"AfterAgent"`)
	find("cursor/pre-tool-use-newline-id.json", "cursor", `"preToolUse"`, `"Shell"`)
	find("cursor/before-mcp-execution-json-string.json", "cursor", `"beforeMCPExecution"`)
	find("cursor/after-mcp-execution-json-string.json", "cursor", `"afterMCPExecution"`)
	find("cursor/after-file-edit.json", "cursor", `"afterFileEdit"`)
	find("copilot-cli/agent-stop.json", "copilot-cli", `"stopReason"`)
	find("copilot-cli/pre-tool-use-snake-case.json", "copilot-cli-snake", `"PreToolUse"`)
	find("copilot-cli/post-tool-use-snake-case-denied.json", "copilot-cli-snake", `"denied"`)
	find("copilot-cli/notification.json", "copilot-cli-snake", `"Notification"`)
	find("vscode/session-start.json", "vscode", `"SessionStart"`)
	find("vscode/user-prompt-submit.json", "vscode", `"UserPromptSubmit"`)
	find("vscode/pre-compact.json", "vscode", `"PreCompact"`)
	find("grok/pre-tool-use-run-terminal-command.json", "grok", `"pre_tool_use"`, `"run_terminal_command"`)
	find("grok/post-tool-use-byte-array-output.json", "grok", `"post_tool_use"`, `"output":[`)
	find("grok/stop.json", "grok", `"hookEventName":"stop"`)
	find("grok/stop-failure.json", "grok", `"stop_failure"`)
	find("grok/session-end.json", "grok", `"session_end"`)

	q["codex/session-start-null-transcript.json"] = mustJSON(obj{{"session_id", "0199c0de-5a11-7e57-8d0c-000000000001"}, {"transcript_path", nil}, {"cwd", "/home/dev/sum"},
		{"hook_event_name", "SessionStart"}, {"model", "gpt-5.1-codex"}, {"permission_mode", "default"}, {"source", "startup"}})
	q["codex/stop-null-message.json"] = mustJSON(obj{{"session_id", "0199c0de-5a11-7e57-8d0c-000000000001"}, {"turn_id", "2"}, {"transcript_path", nil}, {"cwd", "/home/dev/sum"},
		{"hook_event_name", "Stop"}, {"model", "gpt-5.1-codex"}, {"permission_mode", "default"}, {"stop_hook_active", false}, {"last_assistant_message", nil}})
	// The legacy notify program: kebab-case keys, the JSON as the last
	// argument (codex-rs/hooks, legacy_notify).
	q["codex/notify-agent-turn-complete.json"] = mustJSON(obj{{"type", "agent-turn-complete"}, {"thread-id", "0199c0de-5a11-7e57-8d0c-00000000000a"}, {"turn-id", "7"},
		{"cwd", "/home/dev/sum"}, {"client", "codex-tui"}, {"input-messages", []string{prompt1}}, {"last-assistant-message", answer1}})
	// Cursor on Windows: a byte order mark first, cwd only in workspace_roots.
	q["cursor/before-submit-prompt-bom-windows.json"] = append([]byte("\ufeff"), mustJSON(obj{{"conversation_id", "c0de5a11-a5b6-4c7d-8e9f-5a11ed000009"}, {"generation_id", "g-9"},
		{"model", "claude-4.5-sonnet"}, {"hook_event_name", "beforeSubmitPrompt"}, {"cursor_version", "2.1.42"}, {"workspace_roots", []string{`c:\Users\dev\sum`}},
		{"user_email", "dev@example.com"}, {"transcript_path", nil}, {"prompt", "Explain this repository"}})...)
	return q
}

// QuirkNames returns the names of Quirks, sorted.
func QuirkNames() []string {
	var out []string
	for k := range Quirks() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
