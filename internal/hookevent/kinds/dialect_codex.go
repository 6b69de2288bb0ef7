package kinds

import "strings"

// codex: OpenAI Codex CLI, both its hooks (Claude Code's event names and
// fields) and its legacy notify program (kebab-case keys, the event in
// "type").
var codex = Dialect{
	Name: "codex",
	Events: []Event{
		{"agent-turn-complete", "Stop", ""}, // the notify program
		// A turn the user interrupted (Ctrl-C, Esc): Codex sends
		// Interrupt and no Stop (codex-rs/hooks/src/events/interrupt.rs;
		// 0.171.0 has it). No Claude Code event says this: its own name.
		{"Interrupt", "Interrupt", ""},
	},
	// Shell-like tools reach hooks as "Bash"; these are the tool names
	// older and newer builds use for the same thing.
	Tools: []Tool{
		{"shell", "exec"},
		{"local_shell", "exec"},
		{"exec_command", "exec"},
		{"unified_exec", "exec"},
		{"shell_command", "exec"},
		{"apply_patch", "edit"}, // tool_input.command is the patch itself: never recorded in clear
	},
	Fields: Fields{
		Session:    []FieldKey{{Key: "thread-id", Order: 40}}, // the notify program
		ClaimInput: []FieldKey{{Key: "input-messages", Order: 20}},
		Final:      []FieldKey{{Key: "last-assistant-message", Order: 40}},
		TurnID:     []FieldKey{{Key: "turn_id", Order: 20}, {Key: "turn-id", Order: 30}},
		// apply_patch's input: the patch, under the name each build gives it.
		Patch: []FieldKey{{Key: "command", Order: 10}, {Key: "input", Order: 20}, {Key: "patch", Order: 30}},
	},
	Rules: []Rule{
		// First of all: kebab-case keys are the notify program's.
		{10, codexNotify},
		// Codex hooks: a turn id, a null transcript path (Claude Code
		// always names its transcript) or one under ~/.codex.
		{60, func(s Shape) bool {
			return s.Has("turn_id") || s.Null("transcript_path") || strings.Contains(transcript(s), "/.codex/")
		}},
	},
	Unnamed: func(p Payload) (string, bool) {
		if codexNotify(Shape{Payload: p}) {
			return p.Str("type"), true
		}
		return "", false
	},
	StartMessage: true, // reads the common "systemMessage" output field
	// It reads Claude Code's hookSpecificOutput but cannot ask from a
	// hook: an ask is a deny that says approval is needed.
	Gate: Gate{Form: GateHookSpecific},
}

// codexNotify: a payload of Codex's notify program.
func codexNotify(s Shape) bool { return s.Has("thread-id") || s.Has("last-assistant-message") }
