package hookevent

// This file is the one table of the recorder: which harness event is which
// Claude Code event, and which tool is which step kind (spec §8), for every
// dialect the recorder reads. Sources for the names: each harness's hook
// documentation (README, "Harnesses"); testdata/hooks holds real payloads.

// toolKinds maps a tool name, as the harness gives it, to a step kind:
// shell → exec, file edit → edit, file creation/overwrite → write, file
// read or listing → read. Every tool not listed (search, web, MCP,
// sub-agents, task lists) is a tool_call. Names are case-sensitive: "Edit"
// is Claude Code's tool, "edit" Copilot CLI's; where two harnesses use one
// name they mean the same kind of tool.
var toolKinds = map[string]string{
	// Claude Code
	"Bash":         "exec",
	"BashOutput":   "exec",
	"KillShell":    "exec",
	"KillBash":     "exec",
	"PowerShell":   "exec",
	"Edit":         "edit",
	"MultiEdit":    "edit",
	"NotebookEdit": "edit",
	"Write":        "write",
	"Read":         "read",
	"NotebookRead": "read",
	"LS":           "read",

	// OpenAI Codex CLI: shell-like tools reach hooks as "Bash"; these are
	// the tool names older and newer builds use for the same thing.
	"shell":         "exec",
	"local_shell":   "exec",
	"exec_command":  "exec",
	"unified_exec":  "exec",
	"shell_command": "exec",
	"apply_patch":   "edit", // tool_input.command is the patch itself: never recorded in clear

	// Gemini CLI (packages/core/src/tools/tool-names.ts)
	"run_shell_command": "exec",
	"replace":           "edit",
	"write_file":        "write",
	"read_file":         "read", // also Grok Build's and VS Code's
	"read_many_files":   "read",
	"list_directory":    "read",

	// Cursor
	"Shell":      "exec",
	"StrReplace": "edit",

	// GitHub Copilot CLI
	"bash":       "exec",
	"powershell": "exec",
	"edit":       "edit",
	"create":     "write",
	"view":       "read",

	// VS Code agent hooks (model-visible tool names, and the names its
	// hook documentation uses in examples)
	"run_in_terminal":              "exec",
	"runTerminalCommand":           "exec",
	"replace_string_in_file":       "edit",
	"multi_replace_string_in_file": "edit",
	"insert_edit_into_file":        "edit",
	"edit_notebook_file":           "edit",
	"editFiles":                    "edit",
	"create_file":                  "write",
	"createFile":                   "write",
	"readFile":                     "read",
	"list_dir":                     "read", // also Grok Build's

	// Grok Build
	"run_terminal_command": "exec",
	"search_replace":       "edit",
}

// ToolKind returns the step kind of a tool call.
func ToolKind(tool string) string {
	if k, ok := toolKinds[tool]; ok {
		return k
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
// recorded as a note that names it.
var eventNames = map[string]eventInfo{
	// Gemini CLI
	"BeforeTool":          {"PreToolUse", "", "gemini"},
	"AfterTool":           {"PostToolUse", "", "gemini"},
	"BeforeAgent":         {"UserPromptSubmit", "", "gemini"},
	"AfterAgent":          {"Stop", "", "gemini"},
	"PreCompress":         {"PreCompact", "", "gemini"},
	"BeforeModel":         {"BeforeModel", "", "gemini"},
	"AfterModel":          {"AfterModel", "", "gemini"},
	"BeforeToolSelection": {"BeforeToolSelection", "", "gemini"},

	// camelCase names shared by Cursor and Copilot CLI
	"sessionStart":       {"SessionStart", "", ""},
	"sessionEnd":         {"SessionEnd", "", ""},
	"preToolUse":         {"PreToolUse", "", ""},
	"postToolUse":        {"PostToolUse", "", ""},
	"postToolUseFailure": {"PostToolUseFailure", "", ""},
	"subagentStart":      {"SubagentStart", "", ""},
	"subagentStop":       {"SubagentStop", "", ""},
	"preCompact":         {"PreCompact", "", ""},

	// Cursor
	"beforeSubmitPrompt":   {"UserPromptSubmit", "", "cursor"},
	"stop":                 {"Stop", "", ""}, // also Grok Build's
	"beforeShellExecution": {"PreToolUse", "exec", "cursor"},
	"afterShellExecution":  {"PostToolUse", "exec", "cursor"},
	"beforeMCPExecution":   {"PreToolUse", "tool_call", "cursor"},
	"afterMCPExecution":    {"PostToolUse", "tool_call", "cursor"},
	"beforeReadFile":       {"PreToolUse", "read", "cursor"},
	"afterFileEdit":        {"PostToolUse", "edit", "cursor"},
	"afterAgentResponse":   {"AgentResponse", "", "cursor"},
	"afterAgentThought":    {"AgentThought", "", "cursor"},

	// GitHub Copilot CLI, camelCase dialect
	"userPromptSubmitted": {"UserPromptSubmit", "", "copilot-cli"},
	"agentStop":           {"Stop", "", "copilot-cli"},
	"errorOccurred":       {"ErrorOccurred", "", "copilot-cli"},
	"notification":        {"Notification", "", ""}, // also Grok Build's
	"permissionRequest":   {"PermissionRequest", "", "copilot-cli"},
	"ErrorOccurred":       {"ErrorOccurred", "", "copilot-cli"},

	// Grok Build: snake_case names in camelCase payloads
	"session_start":         {"SessionStart", "", "grok"},
	"session_end":           {"SessionEnd", "", "grok"},
	"user_prompt_submit":    {"UserPromptSubmit", "", "grok"},
	"pre_tool_use":          {"PreToolUse", "", "grok"},
	"post_tool_use":         {"PostToolUse", "", "grok"},
	"post_tool_use_failure": {"PostToolUseFailure", "", "grok"},
	"permission_denied":     {"PermissionDenied", "", "grok"},
	"stop_cancelled":        {"StopCancelled", "", "grok"},
	"stop_failure":          {"StopFailure", "", "grok"},
	"pre_compact":           {"PreCompact", "", "grok"},
	"post_compact":          {"PostCompact", "", "grok"},
	"subagent_start":        {"SubagentStart", "", "grok"},
	"subagent_stop":         {"SubagentStop", "", "grok"},

	// Codex's legacy notify program
	"agent-turn-complete": {"Stop", "", "codex"},
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
}

// Canonical returns the Claude Code event name a harness's event name maps
// to, and the kind the event implies ("" when the tool decides).
func Canonical(name string) (event, kind string) {
	if info, ok := eventNames[name]; ok {
		return info.canonical, info.kind
	}
	return name, ""
}
