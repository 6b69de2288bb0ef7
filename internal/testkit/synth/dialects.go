package synth

import (
	"fmt"
	"time"
)

// Dialect returns a session of the harness (one of Harnesses, or
// "copilot-cli-snake" for Copilot CLI's snake_case hooks) in the shape its
// hook documentation gives: the same small task each time (a prompt, a
// read, an edit, a command that passes, one that fails, an MCP call, the
// answer), in that harness's event names, keys and value types.
func Dialect(harness string) (Session, bool) {
	switch harness {
	case "claude-code":
		return Claude("tool_heavy")
	case "codex":
		return codexSession(), true
	case "gemini":
		return geminiSession(), true
	case "cursor":
		return cursorSession(false), true
	case "copilot-cli":
		return copilotCamel(), true
	case "copilot-cli-snake":
		return copilotSnake(), true
	case "vscode":
		return vscodeSession(), true
	case "grok":
		return grokSession(), true
	}
	return Session{}, false
}

const (
	sumJS     = "module.exports = (a, b) => a - b\n"
	testOut   = "FAIL src/sum.test.js\n  x adds two numbers (3 ms)\n    Expected: 5\n    Received: -1\nTests: 1 failed, 1 total\n"
	testPass  = "PASS src/sum.test.js\n  adds two numbers (2 ms)\nTests: 1 passed, 1 total\n"
	prompt1   = "The sum test fails. Find out why, fix it, and run the tests again."
	answer1   = "sum subtracted instead of adding; src/sum.js now returns a + b and the test passes."
	issueBody = "The sum helper subtracted its arguments since the first commit; fixed, with the test that caught it."
)

// codex: Codex CLI hooks (codex-rs/hooks, developers.openai.com/codex/hooks):
// Claude Code's snake_case keys plus turn_id and model; transcript_path may
// be null; apply_patch carries the patch in tool_input.command.
func codexSession() Session {
	b := &builder{s: Session{Name: "codex", Harness: "codex", ID: "0199c0de-5a11-7e57-8d0c-000000000001"}, clk: newClock("2026-05-14T09:12:03Z", 11)}
	tp := "/home/dev/.codex/sessions/2026/05/14/rollout-2026-05-14T09-12-03-" + b.s.ID + ".jsonl"
	head := func(event string, turn bool, extra ...member) obj {
		o := obj{{"session_id", b.s.ID}}
		if turn {
			o = append(o, member{"turn_id", "1"})
		}
		o = append(o, obj{{"transcript_path", tp}, {"cwd", "/home/dev/sum"}, {"hook_event_name", event}, {"model", "gpt-5.1-codex"}, {"permission_mode", "default"}}...)
		return append(o, extra...)
	}
	n := 0
	call := func(tool string, input obj, response any) {
		n++
		id := fmt.Sprintf("call_Sum%d", n)
		b.add(b.clk.next(800, 5000), head("PreToolUse", true, member{"tool_name", tool}, member{"tool_input", input}, member{"tool_use_id", id}))
		b.add(b.clk.next(20, 3000), head("PostToolUse", true, member{"tool_name", tool}, member{"tool_input", input}, member{"tool_response", response}, member{"tool_use_id", id}))
	}
	b.add(b.clk.next(0, 100), head("SessionStart", false, member{"source", "startup"}))
	b.add(b.clk.next(2000, 9000), head("UserPromptSubmit", true, member{"prompt", prompt1}))
	call("Bash", obj{{"command", "npm test"}}, testOut)
	call("apply_patch", obj{{"command", "*** Begin Patch\n*** Update File: src/sum.js\n@@\n-module.exports = (a, b) => a - b\n+module.exports = (a, b) => a + b\n*** Add File: test/sum.test.js\n+test('adds', () => expect(require('../src/sum')(2, 3)).toBe(5))\n*** End Patch\n"}}, "Success. Updated the following files:\nM src/sum.js\nA test/sum.test.js\n")
	b.add(b.clk.next(100, 900), head("PermissionRequest", true, member{"tool_name", "Bash"}, member{"tool_input", obj{{"command", "npm test"}, {"description", "Run the tests again"}}}))
	call("Bash", obj{{"command", "npm test"}}, testPass)
	call("mcp__tracker__create_issue", obj{{"title", "sum subtracted"}, {"body", issueBody}}, `{"content":[{"type":"text","text":"created issue 4"}]}`)
	b.add(b.clk.next(1000, 5000), head("Stop", true, member{"stop_hook_active", false}, member{"last_assistant_message", answer1}))
	return b.s
}

// gemini: Gemini CLI hooks (geminicli.com/docs/hooks): an ISO timestamp
// in every payload, BeforeTool/AfterTool with tool_response {llmContent,
// returnDisplay, error}, BeforeAgent/AfterAgent around a turn. No
// PreCompress (Gemini sends it before every model call; the hooks record
// it as PreCompact).
func geminiSession() Session {
	b := &builder{s: Session{Name: "gemini", Harness: "gemini", ID: "9e3171a1-5b7d-4e8a-9c1f-5a11ed000002"}, clk: newClock("2026-05-14T10:02:11Z", 12)}
	tp := "/home/dev/.gemini/tmp/5a11ed/chats/session-2026-05-14T10-02-9e3171a1.json"
	head := func(at time.Time, event string, extra ...member) obj {
		return append(obj{{"session_id", b.s.ID}, {"transcript_path", tp}, {"cwd", "/home/dev/sum"}, {"hook_event_name", event}, {"timestamp", at.UTC().Format(TimeLayout)}}, extra...)
	}
	ev := func(min, max int, event string, extra ...member) {
		at := b.clk.next(min, max)
		b.add(at, head(at, event, extra...))
	}
	call := func(tool string, input obj, llm, display string, failure obj) {
		ev(800, 5000, "BeforeTool", member{"tool_name", tool}, member{"tool_input", input})
		resp := obj{{"llmContent", llm}, {"returnDisplay", display}}
		if failure != nil {
			resp = append(resp, member{"error", failure})
		}
		ev(20, 3000, "AfterTool", member{"tool_name", tool}, member{"tool_input", input}, member{"tool_response", resp})
	}
	ev(0, 100, "SessionStart", member{"source", "startup"})
	ev(2000, 9000, "BeforeAgent", member{"prompt", prompt1})
	call("read_file", obj{{"file_path", "/home/dev/sum/src/sum.js"}}, sumJS, "Read src/sum.js", nil)
	call("run_shell_command", obj{{"command", "npm test"}, {"description", "Run the tests"}}, "Command: npm test\nDirectory: (root)\nStdout: "+testOut+"Exit Code: 1", "1 failed", obj{{"message", "Command exited with code 1"}, {"type", "SHELL_EXECUTE_ERROR"}})
	call("replace", obj{{"file_path", "/home/dev/sum/src/sum.js"}, {"old_string", "a - b"}, {"new_string", "a + b"}}, "Successfully modified file: /home/dev/sum/src/sum.js (1 replacements).", "src/sum.js: a - b => a + b", nil)
	call("write_file", obj{{"file_path", "/home/dev/sum/NOTES.md"}, {"content", "The sum helper subtracted; fixed on 2026-05-14 with the failing test as the check.\n"}}, "Successfully created and wrote to new file: /home/dev/sum/NOTES.md.", "NOTES.md created", nil)
	ev(100, 2000, "Notification", member{"notification_type", "ToolPermission"}, member{"message", "Gemini wants to run a shell command"}, member{"details", obj{{"tool_name", "run_shell_command"}, {"command", "npm test"}}})
	call("run_shell_command", obj{{"command", "npm test"}, {"description", "Run the tests again"}}, "Command: npm test\nDirectory: (root)\nStdout: "+testPass+"Exit Code: 0", "1 passed", nil)
	ev(1000, 5000, "AfterAgent", member{"prompt", prompt1}, member{"prompt_response", answer1}, member{"stop_hook_active", false})
	ev(1000, 9000, "SessionEnd", member{"reason", "exit"})
	return b.s
}

// cursor: Cursor hooks (cursor.com/docs/agent/hooks): conversation_id and
// generation_id, workspace_roots instead of cwd, camelCase event names,
// tool_output and MCP input and results as JSON text, tool_use_id values
// with a newline inside. With extra, it also holds the MCP and file-edit
// events, which installed hooks do not subscribe to (preToolUse and
// postToolUse already see those calls); Quirks takes them from there.
func cursorSession(extra bool) Session {
	b := &builder{s: Session{Name: "cursor", Harness: "cursor", ID: "c0de5a11-a5b6-4c7d-8e9f-5a11ed000003"}, clk: newClock("2026-05-14T11:00:00Z", 13)}
	gen := 0
	head := func(event string, extra ...member) obj {
		return append(obj{{"conversation_id", b.s.ID}, {"generation_id", fmt.Sprintf("g-%d", gen)}, {"model", "claude-4.5-sonnet"}, {"hook_event_name", event},
			{"cursor_version", "2.1.42"}, {"workspace_roots", []string{"/home/dev/sum"}}, {"user_email", "dev@example.com"}, {"transcript_path", nil}}, extra...)
	}
	n := 0
	call := func(tool string, input obj, output any, failure string) {
		n++
		id := fmt.Sprintf("call_s%d\nctc_s%d", n, n)
		b.add(b.clk.next(800, 5000), head("preToolUse", member{"tool_name", tool}, member{"tool_input", input}, member{"tool_use_id", id}))
		if failure != "" {
			b.add(b.clk.next(20, 3000), head("postToolUseFailure", member{"tool_name", tool}, member{"tool_input", input}, member{"tool_use_id", id}, member{"error_message", failure}, member{"failure_type", "error"}))
			return
		}
		b.add(b.clk.next(20, 3000), head("postToolUse", member{"tool_name", tool}, member{"tool_input", input}, member{"tool_output", jsonText(output)}, member{"tool_use_id", id}, member{"duration", 120}))
	}
	b.add(b.clk.next(0, 100), head("sessionStart", member{"session_id", b.s.ID}, member{"is_background_agent", false}, member{"composer_mode", "agent"}))
	gen = 1
	b.add(b.clk.next(2000, 9000), head("beforeSubmitPrompt", member{"prompt", prompt1}, member{"attachments", []obj{}}))
	call("Read", obj{{"file_path", "/home/dev/sum/src/sum.js"}}, obj{{"content", sumJS}}, "")
	call("StrReplace", obj{{"path", "/home/dev/sum/src/sum.js"}, {"old_string", "a - b"}, {"new_string", "a + b"}}, obj{{"success", true}}, "")
	call("Shell", obj{{"command", "npm test"}, {"working_directory", "/home/dev/sum"}}, obj{{"exitCode", 0}, {"stdout", testPass}, {"stderr", ""}}, "")
	call("Grep", obj{{"pattern", "a - b"}, {"path", "/home/dev/sum/src"}}, nil, "rg: /home/dev/sum/src/gen: Permission denied (os error 13)")
	if extra {
		cursorExtra(b, head)
	}
	b.add(b.clk.next(1000, 5000), head("afterAgentResponse", member{"text", answer1}))
	b.add(b.clk.next(10, 100), head("stop", member{"status", "completed"}, member{"loop_count", 0}))
	gen = 2
	b.add(b.clk.next(1000, 9000), head("sessionEnd", member{"session_id", b.s.ID}, member{"reason", "completed"}, member{"duration_ms", 48211}, member{"is_background_agent", false}, member{"final_status", "completed"}))
	return b.s
}

func cursorExtra(b *builder, head func(string, ...member) obj) {
	b.add(b.clk.next(100, 900), head("beforeMCPExecution", member{"tool_name", "create_issue"}, member{"tool_input", jsonText(obj{{"title", "sum subtracted"}, {"labels", []string{"bug"}}})}, member{"url", nil}, member{"command", "npx -y tracker-mcp"}))
	b.add(b.clk.next(100, 900), head("afterMCPExecution", member{"tool_name", "create_issue"}, member{"tool_input", jsonText(obj{{"title", "sum subtracted"}, {"labels", []string{"bug"}}})}, member{"result_json", jsonText(obj{{"content", []obj{{{"type", "text"}, {"text", "issue 4 created"}}}}})}, member{"duration", 250}))
	b.add(b.clk.next(100, 900), head("afterFileEdit", member{"file_path", "/home/dev/sum/src/sum.js"}, member{"edits", []obj{{{"old_string", "module.exports = (a, b) => a - b"}, {"new_string", "module.exports = (a, b) => a + b"}}}}))
}

// copilotCamel: GitHub Copilot CLI hooks, the camelCase dialect
// (docs.github.com, "Hooks configuration"): no event name in the payload,
// a millisecond timestamp, toolArgs as JSON text.
func copilotCamel() Session {
	b := &builder{s: Session{Name: "copilot-cli", Harness: "copilot-cli", ID: "c0b1107e-8e01-4b73-bf92-5a11ed000004"}, clk: newClock("2026-02-19T06:03:00Z", 14)}
	ev := func(config string, min, max int, extra ...member) {
		at := b.clk.next(min, max)
		b.s.Config = append(b.s.Config, config)
		b.add(at, append(obj{{"timestamp", at.UnixMilli()}, {"cwd", "/home/dev/sum"}, {"sessionId", b.s.ID}}, extra...))
	}
	call := func(tool string, args obj, result string, failure string) {
		ev("preToolUse", 800, 5000, member{"toolName", tool}, member{"toolArgs", jsonText(args)})
		if failure != "" {
			ev("postToolUseFailure", 20, 3000, member{"toolName", tool}, member{"toolArgs", jsonText(args)}, member{"error", failure})
			return
		}
		ev("postToolUse", 20, 3000, member{"toolName", tool}, member{"toolArgs", jsonText(args)}, member{"toolResult", obj{{"resultType", "success"}, {"textResultForLlm", result}}})
	}
	ev("userPromptSubmitted", 0, 100, member{"prompt", prompt1})
	ev("sessionStart", 10, 50, member{"source", "new"}, member{"initialPrompt", prompt1})
	call("bash", obj{{"command", "npm test"}, {"description", "Run the tests"}}, testOut, "")
	call("view", obj{{"path", "/home/dev/sum/src/sum.js"}}, "1. "+sumJS, "")
	call("edit", obj{{"path", "/home/dev/sum/src/sum.js"}, {"old_str", "a - b"}, {"new_str", "a + b"}}, "File /home/dev/sum/src/sum.js updated", "")
	call("create", obj{{"path", "/home/dev/sum/NOTES.md"}, {"file_text", "sum fixed\n"}}, "", "Permission denied: NOTES.md is outside the allowed paths")
	ev("errorOccurred", 100, 900, member{"error", obj{{"message", "rate limited, retrying in 2 s"}, {"name", "RateLimitError"}}}, member{"errorContext", "model_call"}, member{"recoverable", true})
	ev("agentStop", 1000, 5000, member{"transcriptPath", "/home/dev/.copilot/session-state/" + b.s.ID + "/events.jsonl"}, member{"stopReason", "end_turn"})
	ev("sessionEnd", 10, 100, member{"reason", "complete"})
	return b.s
}

// copilotSnake: Copilot CLI's snake_case dialect (the same hooks written
// for Claude Code's configuration): hook_event_name, an ISO timestamp,
// tool_result {result_type, text_result_for_llm}.
func copilotSnake() Session {
	b := &builder{s: Session{Name: "copilot-cli-snake", Harness: "copilot-cli", ID: "c0b1107e-8e01-4b73-bf92-5a11ed000005"}, clk: newClock("2026-02-19T07:00:00Z", 15)}
	ev := func(event string, min, max int, extra ...member) {
		at := b.clk.next(min, max)
		b.add(at, append(obj{{"hook_event_name", event}, {"session_id", b.s.ID}, {"timestamp", at.UTC().Format(TimeLayout)}, {"cwd", "/home/dev/sum"}}, extra...))
	}
	ev("SessionStart", 0, 100, member{"source", "new"})
	ev("UserPromptSubmit", 1000, 5000, member{"prompt", prompt1})
	ev("PreToolUse", 800, 5000, member{"tool_name", "bash"}, member{"tool_input", obj{{"command", "npm test"}, {"description", "Run the tests"}}})
	ev("PostToolUse", 20, 3000, member{"tool_name", "bash"}, member{"tool_input", obj{{"command", "npm test"}, {"description", "Run the tests"}}}, member{"tool_result", obj{{"result_type", "success"}, {"text_result_for_llm", testOut}}})
	ev("PreToolUse", 800, 5000, member{"tool_name", "bash"}, member{"tool_input", obj{{"command", "rm -rf build"}}})
	ev("PostToolUse", 20, 3000, member{"tool_name", "bash"}, member{"tool_input", obj{{"command", "rm -rf build"}}}, member{"tool_result", obj{{"result_type", "denied"}, {"text_result_for_llm", "The user denied this command and asked to keep the build folder."}}})
	ev("Notification", 100, 900, member{"message", "Shell completed"}, member{"title", "Shell completed"}, member{"notification_type", "shell_completed"})
	ev("Stop", 1000, 5000, member{"stop_reason", "end_turn"})
	ev("SessionEnd", 10, 100, member{"reason", "complete"})
	return b.s
}

// vscodeSession: VS Code agent hooks (code.visualstudio.com/docs, "Agent
// hooks"): Claude Code's snake_case keys, an ISO timestamp first, a
// transcript under GitHub.copilot-chat, Windows paths here.
func vscodeSession() Session {
	b := &builder{s: Session{Name: "vscode", Harness: "vscode", ID: "5c0de5a1-1ed0-4f54-8b67-5a11ed000006"}, clk: newClock("2026-03-10T22:48:29Z", 16)}
	tp := `c:\Users\dev\AppData\Roaming\Code\User\workspaceStorage\5a11ed0000000000000000000000000f\GitHub.copilot-chat\transcripts\` + b.s.ID + ".jsonl"
	cwd := `c:\Users\dev\sum`
	ev := func(event string, min, max int, extra ...member) {
		at := b.clk.next(min, max)
		b.add(at, append(append(obj{{"timestamp", at.UTC().Format(TimeLayout)}, {"hook_event_name", event}, {"session_id", b.s.ID}, {"transcript_path", tp}}, extra...), member{"cwd", cwd}))
	}
	ev("SessionStart", 0, 100, member{"source", "new"})
	ev("UserPromptSubmit", 300, 900, member{"prompt", prompt1})
	ev("PreToolUse", 800, 5000, member{"tool_name", "run_in_terminal"}, member{"tool_input", obj{{"command", "npm test"}, {"explanation", "Run the tests"}, {"isBackground", false}}}, member{"tool_use_id", "toolu_vs_1"})
	ev("PostToolUse", 20, 3000, member{"tool_name", "run_in_terminal"}, member{"tool_input", obj{{"command", "npm test"}, {"explanation", "Run the tests"}, {"isBackground", false}}}, member{"tool_response", testOut}, member{"tool_use_id", "toolu_vs_1"})
	ev("PreToolUse", 800, 5000, member{"tool_name", "create_file"}, member{"tool_input", obj{{"filePath", cwd + `\NOTES.md`}, {"content", "The sum helper subtracted; fixed with the failing test as the check.\n"}}}, member{"tool_use_id", "toolu_vs_2"})
	ev("PostToolUse", 20, 3000, member{"tool_name", "create_file"}, member{"tool_input", obj{{"filePath", cwd + `\NOTES.md`}, {"content", "The sum helper subtracted; fixed with the failing test as the check.\n"}}}, member{"tool_response", "The following files were successfully edited: NOTES.md"}, member{"tool_use_id", "toolu_vs_2"})
	ev("SubagentStart", 100, 900, member{"agent_id", "subagent-1"}, member{"agent_type", "Reviewer"})
	ev("SubagentStop", 2000, 9000, member{"agent_id", "subagent-1"}, member{"agent_type", "Reviewer"}, member{"stop_hook_active", false})
	ev("PreCompact", 1000, 9000, member{"trigger", "auto"})
	ev("Stop", 1000, 5000, member{"stop_hook_active", false})
	return b.s
}

// grokSession: Grok Build hooks (its bundled user guide): camelCase keys,
// snake_case event names, workspaceRoot, a nanosecond timestamp, tool
// results by type (command output as an array of byte values, FileContent,
// EditsApplied).
func grokSession() Session {
	b := &builder{s: Session{Name: "grok", Harness: "grok", ID: "019f5a11-e4a4-74d1-8c05-5a11ed000007"}, clk: newClock("2026-07-02T14:00:00Z", 17)}
	tp := "/home/dev/.grok/sessions/%2Fhome%2Fdev%2Fsum/" + b.s.ID + "/updates.jsonl"
	ev := func(event string, min, max int, extra ...member) {
		at := b.clk.next(min, max)
		o := obj{{"hookEventName", event}, {"sessionId", b.s.ID}, {"cwd", "/home/dev/sum"}, {"workspaceRoot", "/home/dev/sum/"}, {"timestamp", at.UTC().Format("2006-01-02T15:04:05.000000000+00:00")}}
		if event != "session_start" {
			o = append(o, member{"transcriptPath", tp})
		}
		b.add(at, append(o, extra...))
	}
	n := 0
	call := func(tool string, input obj, result obj) {
		n++
		id := fmt.Sprintf("call_grok_%d", n)
		ev("pre_tool_use", 800, 5000, member{"toolName", tool}, member{"toolUseId", id}, member{"toolInput", input}, member{"toolInputTruncated", false}, member{"permissionMode", "default"})
		ev("post_tool_use", 20, 3000, member{"toolName", tool}, member{"effectiveToolName", tool}, member{"toolUseId", id}, member{"toolInput", input}, member{"toolResult", result})
	}
	out := []int{}
	for _, c := range []byte(testOut) {
		out = append(out, int(c))
	}
	ev("session_start", 0, 100, member{"source", "startup"})
	ev("user_prompt_submit", 1000, 5000, member{"promptId", "0a1b2c3d-0000-4000-8000-5a11ed000001"}, member{"prompt", prompt1})
	call("run_terminal_command", obj{{"command", "npm test"}, {"timeout", 120}, {"description", "Run the tests"}},
		obj{{"type", "CommandOutput"}, {"output", out}, {"output_for_prompt", testOut}, {"exit_code", 1}, {"command", "npm test"}, {"truncated", false}})
	call("read_file", obj{{"target_file", "src/sum.js"}},
		obj{{"type", "FileContent"}, {"FileContent", obj{{"content", sumJS}, {"content_concise", sumJS}, {"absolute_path", "/home/dev/sum/src/sum.js"}, {"offset", nil}, {"raw_output", sumJS}, {"total_lines", 1}}}})
	call("search_replace", obj{{"file_path", "src/sum.js"}, {"old_string", "a - b"}, {"new_string", "a + b"}},
		obj{{"type", "EditsApplied"}, {"EditsApplied", obj{{"old_string", "a - b"}, {"new_string", "a + b"}, {"tool_output_for_prompt", "The file src/sum.js has been updated."}}}})
	ev("stop", 1000, 5000, member{"promptId", "0a1b2c3d-0000-4000-8000-5a11ed000001"}, member{"reason", "end_turn"})
	ev("notification", 100, 900, member{"notificationType", "turn_complete"}, member{"message", "Grok finished the task"}, member{"level", "info"})
	ev("stop_failure", 1000, 5000, member{"permissionMode", "default"}, member{"promptId", "0a1b2c3d-0000-4000-8000-5a11ed000002"}, member{"error", "rate_limit"}, member{"errorDetails", "429 Too Many Requests"}, member{"lastAssistantMessage", "I was about to run the tests a second time."})
	ev("session_end", 1000, 5000, member{"reason", "shutdown"})
	return b.s
}
