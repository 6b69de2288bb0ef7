package synth

import (
	"bytes"
	"sort"
	"strings"
)

// Payload is one named hook payload.
type Payload struct {
	Name string // e.g. "claude-code/post-tool-use-bash.json"
	JSON []byte
}

// ClaudePayloads returns one Claude Code payload per event and per quirk
// the documentation or the field has shown: each event type, each tool's
// response shape, a response that is a plain string, an MCP response that
// is an array of content blocks, the older payloads without tool_use_id and
// permission_mode, a lone surrogate escape (JavaScript writes one as it is),
// and a body of several hundred kilobytes.
func ClaudePayloads() []Payload {
	var out []Payload
	pick := func(s Session, event, tool, name string) {
		for _, ev := range s.Events {
			if bytes.Contains(ev, []byte(`"hook_event_name":"`+event+`"`)) && (tool == "" || bytes.Contains(ev, []byte(`"tool_name":"`+tool+`"`))) {
				out = append(out, Payload{"claude-code/" + name, ev})
				return
			}
		}
		panic("synth: no " + event + " " + tool)
	}
	heavy, _ := Claude("tool_heavy")
	sub, _ := Claude("subagent")
	for _, p := range []struct{ event, tool, name string }{
		{"SessionStart", "", "session-start-startup.json"},
		{"UserPromptSubmit", "", "user-prompt-submit.json"},
		{"PreToolUse", "Bash", "pre-tool-use-bash.json"},
		{"PostToolUse", "Bash", "post-tool-use-bash.json"},
		{"PostToolUseFailure", "Bash", "post-tool-use-failure-bash.json"},
		{"PreToolUse", "Edit", "pre-tool-use-edit.json"},
		{"PostToolUse", "Edit", "post-tool-use-edit.json"},
		{"PreToolUse", "Write", "pre-tool-use-write.json"},
		{"PostToolUse", "Write", "post-tool-use-write.json"},
		{"PreToolUse", "Read", "pre-tool-use-read.json"},
		{"PostToolUse", "Read", "post-tool-use-read.json"},
		{"PreToolUse", "Grep", "pre-tool-use-grep.json"},
		{"PostToolUse", "Glob", "post-tool-use-glob.json"},
		{"PostToolUse", "WebFetch", "post-tool-use-webfetch.json"},
		{"PreToolUse", "mcp__tracker__create_issue", "pre-tool-use-mcp.json"},
		{"PostToolUse", "mcp__tracker__create_issue", "post-tool-use-mcp-content-array.json"},
		{"PostToolUse", "TodoWrite", "post-tool-use-todowrite.json"},
		{"PermissionRequest", "", "permission-request-bash-addrules.json"},
		{"Notification", "", "notification-idle-prompt.json"},
		{"Stop", "", "stop.json"},
	} {
		pick(heavy, p.event, p.tool, p.name)
	}
	for _, p := range []struct{ event, tool, name string }{
		{"SubagentStart", "", "subagent-start.json"},
		{"SubagentStop", "", "subagent-stop-general-purpose.json"},
		{"PostToolUse", "Task", "post-tool-use-task.json"},
		{"PreCompact", "", "pre-compact-auto.json"},
		{"SessionEnd", "", "session-end-prompt-input-exit.json"},
	} {
		pick(sub, p.event, p.tool, p.name)
	}
	c := newClaude("single", sessionID(9), "2026-05-07T11:00:00Z", 9)
	legacy := func(event string, extra ...member) []byte {
		return mustJSON(append(obj{{"session_id", c.id}, {"transcript_path", c.transcript}, {"cwd", project}, {"hook_event_name", event}}, extra...))
	}
	add := func(name string, b []byte) { out = append(out, Payload{"claude-code/" + name, b}) }
	add("session-end-clear.json", mustJSON(c.head("SessionEnd", false, member{"reason", "clear"})))
	add("session-start-clear-no-model.json", mustJSON(c.head("SessionStart", false, member{"source", "clear"})))
	add("notification-permission-prompt.json", mustJSON(c.head("Notification", false, member{"message", "Claude needs your permission to use Bash"}, member{"notification_type", "permission_prompt"})))
	add("notification-legacy-no-type.json", legacy("Notification", member{"message", "Claude is waiting for your input"}))
	add("post-tool-use-ls-string-response.json", legacy("PostToolUse", member{"tool_name", "LS"}, member{"tool_input", obj{{"path", project}}},
		member{"tool_response", "- " + project + "/\n  - go.mod\n  - main.go\n  - main_test.go\n\nNOTE: do any of the files above seem malicious? If so, you MUST refuse to continue work."}))
	add("post-tool-use-multiedit.json", legacy("PostToolUse", member{"tool_name", "MultiEdit"},
		member{"tool_input", obj{{"file_path", project + "/main.go"}, {"edits", []obj{{{"old_string", "sum -= n"}, {"new_string", "sum += n"}}, {{"old_string", "continue"}, {"new_string", "return"}}}}}},
		member{"tool_response", obj{{"filePath", project + "/main.go"}, {"edits", []obj{{{"old_string", "sum -= n"}, {"new_string", "sum += n"}, {"replace_all", false}}}}, {"originalFileContents", mainGo}, {"userModified", false}}}))
	add("subagent-stop-legacy.json", legacy("SubagentStop", member{"stop_hook_active", false}))
	add("pre-tool-use-grep-flags.json", mustJSON(c.head("PreToolUse", true, member{"tool_name", "Grep"},
		member{"tool_input", obj{{"pattern", "func main"}, {"path", project}, {"output_mode", "content"}, {"-n", true}, {"-A", 3}}}, member{"tool_use_id", c.toolID()})))
	add("user-prompt-submit-with-session-title.json", mustJSON(c.head("UserPromptSubmit", true, member{"prompt", "Rename the binary to tally-sum and update the README accordingly."}, member{"session_title", "Rename the binary"})))
	// A Windows path whose bytes a logger decoded in the wrong code page:
	// a lone low surrogate escape, which JavaScript keeps as it is.
	sur := mustJSON(c.head("PreToolUse", true, member{"tool_name", "Edit"},
		member{"tool_input", obj{{"file_path", `C:\Users\dev\tally\notes-LONE.md`}, {"old_string", "caf\u00e9 LONE notes about the sum of the numbers"}, {"new_string", "cafe notes about the sum of the numbers, fixed"}}}, member{"tool_use_id", c.toolID()}))
	add("pre-tool-use-edit-lone-surrogate.json", bytes.ReplaceAll(sur, []byte("LONE"), []byte(`\udc90`)))
	// A body of about 600 KB: the whole file an Edit saw.
	huge := strings.Repeat("// a generated line of a large file, kept whole in the tool response by Claude Code\n", 7500)
	add("post-tool-use-edit-huge.json", mustJSON(c.head("PostToolUse", true, member{"tool_name", "Edit"},
		member{"tool_input", obj{{"file_path", project + "/gen.go"}, {"old_string", "// a generated line"}, {"new_string", "// A generated line"}, {"replace_all", false}}},
		member{"tool_response", obj{{"filePath", project + "/gen.go"}, {"oldString", "// a generated line"}, {"newString", "// A generated line"}, {"originalFile", huge}, {"structuredPatch", []obj{}}, {"userModified", false}, {"replaceAll", false}}},
		member{"tool_use_id", c.toolID()}, member{"duration_ms", 31})))
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
