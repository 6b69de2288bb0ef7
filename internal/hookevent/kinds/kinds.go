// Package kinds is the one table of the recorder: which harness event is
// which Claude Code event, and which tool is which step kind (spec §8), for
// every dialect the recorder reads. Sources for the names: each harness's hook
// documentation (docs/harnesses.md); internal/synth writes payloads in each
// documented shape, and the real ones are in the shared samples (internal/corpora).
package kinds

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// toolKinds maps a tool name, as the harness gives it, to a step kind:
// shell → exec, file edit → edit, file creation/overwrite → write, file
// read or listing → read. Every tool not listed (search, web, MCP,
// sub-agents, task lists) is a tool_call. Names are case-sensitive: "Edit"
// is Claude Code's tool, "edit" Copilot CLI's; where two harnesses use one
// name they mean the same kind of tool. A list, not a map: it is laid out
// at build time, so record-step's start-up does not build it on every
// event.
var toolKinds = [...]struct{ tool, kind string }{
	// Claude Code
	{"Bash", "exec"},
	{"BashOutput", "exec"},
	{"KillShell", "exec"},
	{"KillBash", "exec"},
	{"PowerShell", "exec"},
	{"Edit", "edit"},
	{"MultiEdit", "edit"},
	{"NotebookEdit", "edit"},
	{"Write", "write"},
	{"Read", "read"},
	{"NotebookRead", "read"},
	{"LS", "read"},

	// OpenAI Codex CLI: shell-like tools reach hooks as "Bash"; these are
	// the tool names older and newer builds use for the same thing.
	{"shell", "exec"},
	{"local_shell", "exec"},
	{"exec_command", "exec"},
	{"unified_exec", "exec"},
	{"shell_command", "exec"},
	{"apply_patch", "edit"}, // tool_input.command is the patch itself: never recorded in clear

	// Gemini CLI (packages/core/src/tools/tool-names.ts)
	{"run_shell_command", "exec"},
	{"replace", "edit"},
	{"write_file", "write"},
	{"read_file", "read"}, // also Grok Build's and VS Code's
	{"read_many_files", "read"},
	{"list_directory", "read"},

	// Cursor
	{"Shell", "exec"},
	{"StrReplace", "edit"},

	// GitHub Copilot CLI
	{"bash", "exec"},
	{"powershell", "exec"},
	{"edit", "edit"},
	{"create", "write"},
	{"view", "read"},

	// VS Code agent hooks (model-visible tool names, and the names its
	// hook documentation uses in examples)
	{"run_in_terminal", "exec"},
	{"runTerminalCommand", "exec"},
	{"replace_string_in_file", "edit"},
	{"multi_replace_string_in_file", "edit"},
	{"insert_edit_into_file", "edit"},
	{"edit_notebook_file", "edit"},
	{"editFiles", "edit"},
	{"create_file", "write"},
	{"createFile", "write"},
	{"readFile", "read"},
	{"list_dir", "read"}, // also Grok Build's

	// Grok Build
	{"run_terminal_command", "exec"},
	{"search_replace", "edit"},
}

// ToolKind returns the step kind of a tool call.
func ToolKind(tool string) string {
	for _, t := range toolKinds {
		if t.tool == tool {
			return t.kind
		}
	}
	return "tool_call"
}

// eventInfo says what a harness's event name means.
type eventInfo struct {
	canonical string // the Claude Code event it maps to
	kind      string // for events that stand for one kind of tool call (Cursor's shell, read, edit and MCP events)
	harness   string // the one harness that uses this name, "" when several do
}

// eventNames maps every harness's event names to Claude Code's. A name not
// listed is its own canonical name (Claude Code's events, Codex hooks, VS
// Code, Copilot CLI's PascalCase dialect) or an unknown event, still
// recorded as a note that names it. A list, like toolKinds.
var eventNames = [...]struct {
	name string
	eventInfo
}{
	// Gemini CLI
	{"BeforeTool", eventInfo{"PreToolUse", "", "gemini"}},
	{"AfterTool", eventInfo{"PostToolUse", "", "gemini"}},
	{"BeforeAgent", eventInfo{"UserPromptSubmit", "", "gemini"}},
	{"AfterAgent", eventInfo{"Stop", "", "gemini"}},
	{"PreCompress", eventInfo{"PreCompact", "", "gemini"}},
	{"BeforeModel", eventInfo{"BeforeModel", "", "gemini"}},
	{"AfterModel", eventInfo{"AfterModel", "", "gemini"}},
	{"BeforeToolSelection", eventInfo{"BeforeToolSelection", "", "gemini"}},

	// camelCase names shared by Cursor and Copilot CLI
	{"sessionStart", eventInfo{"SessionStart", "", ""}},
	{"sessionEnd", eventInfo{"SessionEnd", "", ""}},
	{"preToolUse", eventInfo{"PreToolUse", "", ""}},
	{"postToolUse", eventInfo{"PostToolUse", "", ""}},
	{"postToolUseFailure", eventInfo{"PostToolUseFailure", "", ""}},
	{"subagentStart", eventInfo{"SubagentStart", "", ""}},
	{"subagentStop", eventInfo{"SubagentStop", "", ""}},
	{"preCompact", eventInfo{"PreCompact", "", ""}},

	// Cursor
	{"beforeSubmitPrompt", eventInfo{"UserPromptSubmit", "", "cursor"}},
	{"stop", eventInfo{"Stop", "", ""}}, // also Grok Build's
	{"beforeShellExecution", eventInfo{"PreToolUse", "exec", "cursor"}},
	{"afterShellExecution", eventInfo{"PostToolUse", "exec", "cursor"}},
	{"beforeMCPExecution", eventInfo{"PreToolUse", "tool_call", "cursor"}},
	{"afterMCPExecution", eventInfo{"PostToolUse", "tool_call", "cursor"}},
	{"beforeReadFile", eventInfo{"PreToolUse", "read", "cursor"}},
	{"afterFileEdit", eventInfo{"PostToolUse", "edit", "cursor"}},
	{"afterAgentResponse", eventInfo{"AgentResponse", "", "cursor"}},
	{"afterAgentThought", eventInfo{"AgentThought", "", "cursor"}},

	// GitHub Copilot CLI, camelCase dialect
	{"userPromptSubmitted", eventInfo{"UserPromptSubmit", "", "copilot-cli"}},
	{"agentStop", eventInfo{"Stop", "", "copilot-cli"}},
	{"errorOccurred", eventInfo{"ErrorOccurred", "", "copilot-cli"}},
	{"notification", eventInfo{"Notification", "", ""}}, // also Grok Build's
	{"permissionRequest", eventInfo{"PermissionRequest", "", "copilot-cli"}},
	{"ErrorOccurred", eventInfo{"ErrorOccurred", "", "copilot-cli"}},

	// Grok Build: snake_case names in camelCase payloads
	{"session_start", eventInfo{"SessionStart", "", "grok"}},
	{"session_end", eventInfo{"SessionEnd", "", "grok"}},
	{"user_prompt_submit", eventInfo{"UserPromptSubmit", "", "grok"}},
	{"pre_tool_use", eventInfo{"PreToolUse", "", "grok"}},
	{"post_tool_use", eventInfo{"PostToolUse", "", "grok"}},
	{"post_tool_use_failure", eventInfo{"PostToolUseFailure", "", "grok"}},
	{"permission_denied", eventInfo{"PermissionDenied", "", "grok"}},
	{"stop_cancelled", eventInfo{"StopCancelled", "", "grok"}},
	{"stop_failure", eventInfo{"StopFailure", "", "grok"}},
	{"pre_compact", eventInfo{"PreCompact", "", "grok"}},
	{"post_compact", eventInfo{"PostCompact", "", "grok"}},
	{"subagent_start", eventInfo{"SubagentStart", "", "grok"}},
	{"subagent_stop", eventInfo{"SubagentStop", "", "grok"}},

	// Codex's legacy notify program
	{"agent-turn-complete", eventInfo{"Stop", "", "codex"}},
}

// eventKinds maps events that are not tool calls to kinds: a prompt is a
// note, the agent's stop with its final message a claim, a permission
// decision a gate. Anything else, known or not, is a note.
var eventKinds = map[string]string{
	"UserPromptSubmit":  "note",
	"Stop":              "claim",
	"SubagentStop":      "claim",
	"StopCancelled":     "claim",
	"AgentResponse":     "claim",
	"PermissionRequest": "gate",
	"PermissionDenied":  "gate",
}

// toolEvents are the events that describe one tool call.
var toolEvents = map[string]bool{
	"PreToolUse":         true,
	"PostToolUse":        true,
	"PostToolUseFailure": true,
}

// KnownEvents lists the Claude Code hook events recorded by name; any
// other event is still recorded, as a note that names it.
var KnownEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"Notification", "SubagentStart", "SubagentStop", "PreCompact",
	"PostCompact", "Stop", "StopFailure", "SessionEnd",
	// Claude Code 2.1.x (events.go)
	"PostToolBatch", "PreModelSwitch", "PostModelSwitch", "TaskCreated",
	"TaskCompleted", "TeammateIdle", "CwdChanged", "FileChanged",
	"InstructionsLoaded", "ConfigChange", "Setup", "Elicitation",
	"ElicitationResult", "WorktreeCreate", "WorktreeRemove",
	"DirectoryAdded", "UserPromptExpansion", "MessageDisplay",
}

// Canonical returns the Claude Code event name a harness's event name maps
// to, and the kind the event implies ("" when the tool decides).
func Canonical(name string) (event, kind string) {
	info := eventOf(name)
	return info.canonical, info.kind
}

// eventOf looks name up in eventNames; an unlisted name is its own
// canonical name.
func eventOf(name string) eventInfo {
	for _, e := range eventNames {
		if e.name == name {
			return e.eventInfo
		}
	}
	return eventInfo{canonical: name}
}

// Harness returns the one harness that uses the event name, or "" when
// several do or it is not a harness's own name.
func Harness(name string) string { return eventOf(name).harness }

// ToolEvent reports whether the (canonical) event describes one tool call.
func ToolEvent(event string) bool { return toolEvents[event] }

// EventKind returns the kind of a (canonical) event that is not a tool
// call, "" for a note.
func EventKind(event string) string { return eventKinds[event] }

// Harnesses are the names a hook hint and session.agent use.
var Harnesses = []string{"claude-code", "codex", "gemini", "cursor", "copilot-cli", "vscode", "grok"}

// KnownHarness reports whether name is one of Harnesses.
func KnownHarness(name string) bool {
	for _, h := range Harnesses {
		if h == name {
			return true
		}
	}
	return false
}

// StartMessage: the harnesses whose session-start hook can put a line
// in front of the user: a JSON object on the hook's stdout whose
// "systemMessage" the harness shows (Claude Code: "display a message to
// the user", any hook; Gemini CLI, Codex and VS Code read the same common
// output field). Cursor's sessionStart output and Copilot CLI's reach no
// one on screen, and Grok Build documents no such field: there a failure
// goes to stderr and errors.log only.
// "" (no --harness) is Claude Code's hooks, wired by hand.
func StartMessage(harness string) bool {
	switch harness {
	case "", "claude-code", "gemini", "codex", "vscode":
		return true
	}
	return false
}

// SessionStart reports whether a harness's event name (any dialect) is
// the start of a session.
func SessionStart(name string) bool {
	ev, _ := Canonical(name)
	return ev == "SessionStart"
}

// SystemMessage is the hook output that shows msg to the user (see
// StartMessage): one JSON object and a newline. msg is written as a JSON
// string here, without encoding/json, which record-step does not link.
func SystemMessage(msg string) []byte {
	b := []byte(`{"systemMessage":"`)
	for _, r := range strings.ToValidUTF8(msg, "\uFFFD") {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || r == 0x2028 || r == 0x2029 || r == 0x7f:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, "\"}\n"...)
}
