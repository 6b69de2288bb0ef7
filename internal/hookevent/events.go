package hookevent

import (
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// The Claude Code events added in 2.1.x beyond the tool, prompt, stop and
// session events (payload fields as Claude Code 2.1.328 sends them, seen by
// e2e/realharness_test.go or read from its hook reference). Each is a note,
// except an elicitation's answer, which is the user's decision: a gate.
// Bodies (a batch's inputs and results, a task's subject, an MCP server's
// message, a displayed text) are digested; names, ids and paths are data.
//
// A list, like the tables of kinds.go, laid out at build time.
var laterEvents = [...]struct {
	name  string
	parse func(b *builder, st *chain.Step, cwd string) string
}{
	{"PostToolBatch", (*builder).toolBatch},
	{"PreModelSwitch", func(b *builder, st *chain.Step, _ string) string {
		return b.modelSwitch()
	}},
	{"PostModelSwitch", func(b *builder, st *chain.Step, _ string) string {
		return b.modelSwitch()
	}},
	{"TaskCreated", (*builder).task},
	{"TaskCompleted", (*builder).task},
	{"TeammateIdle", func(b *builder, st *chain.Step, _ string) string {
		b.set("teammateName", b.str("teammate_name"))
		b.set("teamName", b.str("team_name"))
		return b.str("teammate_name")
	}},
	{"CwdChanged", func(b *builder, st *chain.Step, _ string) string {
		b.set("oldCwd", b.str("old_cwd"))
		b.set("newCwd", b.str("new_cwd"))
		return b.str("new_cwd")
	}},
	{"FileChanged", func(b *builder, st *chain.Step, cwd string) string {
		p := b.path("file_path", cwd)
		b.set("change", b.str("event"))
		return strings.TrimSpace(b.str("event") + " " + p)
	}},
	{"InstructionsLoaded", func(b *builder, st *chain.Step, cwd string) string {
		p := b.path("file_path", cwd)
		b.set("memoryType", b.str("memory_type"))
		b.set("loadReason", b.str("load_reason"))
		b.set("trigger", b.str("trigger_file_path"))
		return p
	}},
	{"ConfigChange", func(b *builder, st *chain.Step, cwd string) string {
		b.set("source", b.str("source"))
		p := b.path("file_path", cwd)
		return strings.TrimSpace(b.str("source") + " " + p)
	}},
	{"Setup", func(b *builder, st *chain.Step, _ string) string {
		b.set("trigger", b.str("trigger"))
		return b.str("trigger")
	}},
	{"Elicitation", func(b *builder, st *chain.Step, _ string) string {
		st.Inputs = append(b.body("message"), b.body("requested_schema")...)
		b.elicitation()
		return b.str("mcp_server_name")
	}},
	{"ElicitationResult", func(b *builder, st *chain.Step, _ string) string {
		st.Kind = "gate"
		st.Outputs = b.body("content")
		b.set("action", b.str("action"))
		b.elicitation()
		return strings.TrimSpace(b.str("mcp_server_name") + " " + b.str("action"))
	}},
	{"WorktreeCreate", func(b *builder, st *chain.Step, _ string) string {
		b.set("name", b.str("name", "worktree_name"))
		return b.str("name", "worktree_name")
	}},
	{"WorktreeRemove", func(b *builder, st *chain.Step, cwd string) string {
		return b.path("worktree_path", cwd)
	}},
	{"DirectoryAdded", func(b *builder, st *chain.Step, cwd string) string {
		b.set("source", b.str("source"))
		return b.path("directory", cwd)
	}},
	{"UserPromptExpansion", func(b *builder, st *chain.Step, _ string) string {
		st.Inputs = append(b.body("prompt"), b.body("command_args")...)
		b.set("expansionType", b.str("expansion_type"))
		b.set("commandName", b.str("command_name"))
		b.set("commandSource", b.str("command_source"))
		return b.str("command_name")
	}},
	{"PreSkillShellCommand", (*builder).skillShell},
	// Codex: the user interrupted the turn (no Stop follows). The hook
	// that receives it seals the record, so an interrupted session has
	// one and the interruption is its last step.
	{"Interrupt", func(b *builder, st *chain.Step, _ string) string {
		b.set("model", b.str("model"))
		return "turn interrupted"
	}},
	{"MessageDisplay", func(b *builder, st *chain.Step, _ string) string {
		st.Outputs = b.body("delta")
		b.set("messageId", b.str("message_id"))
		b.setInt("index", b.get("index"))
		if v := b.get("final"); v != nil && (v.Kind == strictjson.True || v.Kind == strictjson.False) {
			b.data = append(b.data, strictjson.Member{Key: "final", Value: strictjson.Value{Kind: v.Kind}})
		}
		return "text" + sizeNote(b.get("delta"))
	}},
}

// skillShell: PreSkillShellCommand (Claude Code 2.1.332), the shell
// preamble of a skill or slash command (!`cmd`) about to run as it loads.
// Its payload, as 2.1.332's own schema gives it: tool_name (Bash or
// PowerShell), tool_input.command (the command as it would run),
// tool_use_id (naming no tool call of the transcript), command_name (the
// skill or command), command_source and invoked_by (user, claude, other).
// It runs a command as Bash does, so it is an exec step whose input is the
// command, and the organization policy decides it as it decides a Bash
// call (orgpolicy.Gated). A payload without tool_name is read as Bash's,
// and a top-level "command" stands for tool_input.
func (b *builder) skillShell(st *chain.Step, cwd string) string {
	st.Kind = "exec"
	var view objView
	st.Inputs, view = b.toolInput("exec")
	tool := b.field(keys.ToolName)
	if tool == "" {
		tool = "Bash"
	}
	detail := b.toolMeta(tool, cwd, view)
	b.set("skill", b.str("command_name"))
	b.set("commandSource", b.str("command_source"))
	b.set("invokedBy", b.str("invoked_by"))
	if skill := b.str("command_name"); skill != "" {
		detail = skill + ": " + detail
	}
	return detail
}

// laterEvent returns the parser of one of these events, nil for another.
func laterEvent(name string) func(b *builder, st *chain.Step, cwd string) string {
	for _, e := range laterEvents {
		if e.name == name {
			return e.parse
		}
	}
	return nil
}

// path records a path field relative to cwd as data.path.
func (b *builder) path(key, cwd string) string {
	p := b.str(key)
	if p == "" {
		return ""
	}
	rel := relPath(b.red.String(p), cwd)
	b.set("path", rel)
	return rel
}

func (b *builder) modelSwitch() string {
	from, to := b.str("from_model"), b.str("to_model")
	b.set("fromModel", from)
	b.set("toModel", to)
	b.set("requestedModel", b.str("requested_model"))
	b.set("source", b.str("source"))
	return strings.TrimSpace(from + " → " + to)
}

// task: TaskCreated and TaskCompleted. The subject and description are
// written by the model: bodies, digested in that order.
func (b *builder) task(st *chain.Step, _ string) string {
	st.Inputs = append(b.body("task_subject"), b.body("task_description")...)
	b.set("taskId", b.str("task_id"))
	b.set("teammateName", b.str("teammate_name"))
	b.set("teamName", b.str("team_name"))
	return "task " + b.str("task_id") + sizeNote(b.get("task_subject"))
}

func (b *builder) elicitation() {
	b.set("mcpServer", b.str("mcp_server_name"))
	b.set("mode", b.str("mode"))
	b.set("url", b.str("url"))
	b.set("elicitationId", b.str("elicitation_id"))
}

// toolBatch: PostToolBatch lists every call of one model turn once all
// have resolved, including calls that fired no PreToolUse (a tool the
// session does not have). Each call's input and result (or error) is
// digested, in the batch's order; the tools and their ids are data, so a
// call that appears nowhere else is still named.
func (b *builder) toolBatch(st *chain.Step, _ string) string {
	v := b.get("tool_calls", "tool_results")
	if v == nil || v.Kind != strictjson.Array {
		return ""
	}
	var tools, ids []string
	src := b.src[v.Start:v.End]
	_, _ = strictjson.Shallow(src, strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth, Depth: 1}, func(_ int, item *strictjson.Value) error {
		if item.Kind != strictjson.Object {
			return nil
		}
		call, err := strictjson.Shallow(src[item.Start:item.End], strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth, Depth: 2}, nil)
		if err != nil {
			return nil
		}
		b.lastWins(call, "tool_calls[].")
		o := objView{call, src[item.Start:item.End]}
		tools = append(tools, o.str("tool_name"))
		ids = append(ids, o.str("tool_use_id"))
		if in := call.Get("tool_input"); in != nil {
			st.Inputs = append(st.Inputs, b.digest(in, o.src))
		}
		for _, k := range []string{"tool_response", "tool_result", "error_message", "error"} {
			if out := call.Get(k); out != nil && out.Kind != strictjson.Null {
				st.Outputs = append(st.Outputs, b.digest(out, o.src))
				break
			}
		}
		return nil
	})
	if len(tools) > 0 {
		b.data = append(b.data, strictjson.Member{Key: "tools", Value: strictjson.StrArr(b.redactAll(tools))})
		b.data = append(b.data, strictjson.Member{Key: "toolUseIds", Value: strictjson.StrArr(b.redactAll(ids))})
	}
	return strings.Join(tools, ", ")
}

// geminiExitCode reads a shell call's exit status from Gemini CLI's
// tool_response: the CLI reports it only inside llmContent, the text
// the model is sent, as a line "Exit Code: N" (0.61; a command that
// exits 0 has no such line).
func geminiExitCode(res objView) (int64, bool) {
	if res.v == nil {
		return 0, false
	}
	text, ok := res.v.GetString("llmContent")
	if !ok {
		return 0, false
	}
	const label = "\nExit Code: "
	i := strings.Index(text, label)
	if i < 0 {
		return 0, false
	}
	var n int64
	digits := 0
	for _, c := range text[i+len(label):] {
		if c < '0' || c > '9' || digits == 9 {
			break
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	return n, digits > 0
}
