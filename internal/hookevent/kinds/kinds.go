// Package kinds is the recorder's one table of harness dialects: which
// harness event is which Claude Code event, which tool is which step kind
// (spec §8), which keys a payload's fields come under (fields.go), and
// which harness sent a payload — each harness in its own file,
// dialect_NAME.go, listed once in registry (dialect.go). Sources for
// the names: each harness's hook documentation (docs/harnesses.md);
// internal/testkit/synth writes payloads in each documented shape, and the real
// ones are in the shared samples (internal/testkit/corpora).
package kinds

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

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
	// Claude Code 2.1.332: a skill's or slash command's shell preamble
	// (!`cmd`), run as it loads; an exec step, gated like PreToolUse.
	"PreSkillShellCommand",
}

// Known reports whether the recorder knows a (canonical) event name: a
// Claude Code event, or one a dialect maps an event to. An event no one
// knows (a harness's newer event, wired by hand) is still recorded, as a
// note that names it and says it is unknown (data.unknownEvent).
func Known(event string) bool {
	if slices.Contains(KnownEvents, event) || eventKinds[event] != "" {
		return true
	}
	for _, d := range registry {
		for _, e := range d.Events {
			if e.Name == event || e.Canonical == event {
				return true
			}
		}
	}
	return false
}

// Canonical returns the Claude Code event name a harness's event name maps
// to, and the kind the event implies ("" when the tool decides).
func Canonical(name string) (event, kind string) {
	e, _ := eventOf(name)
	return e.Canonical, e.Kind
}

// Harness returns the one harness that uses the event name, or "" when
// several do or it is not a harness's own name.
func Harness(name string) string {
	_, h := eventOf(name)
	return h
}

// ToolEvent reports whether the (canonical) event describes one tool call.
func ToolEvent(event string) bool { return toolEvents[event] }

// EventKind returns the kind of a (canonical) event that is not a tool
// call, "" for a note.
func EventKind(event string) string { return eventKinds[event] }

// StartMessage reports whether a harness's session-start hook can put a
// line in front of the user: a JSON object on the hook's stdout whose
// "systemMessage" the harness shows (Dialect.StartMessage). Where it
// cannot, a failure goes to stderr and errors.log only. "" (no --harness)
// is Claude Code's hooks, wired by hand.
func StartMessage(harness string) bool {
	if harness == "" {
		return true
	}
	d := Lookup(harness)
	return d != nil && d.StartMessage
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
