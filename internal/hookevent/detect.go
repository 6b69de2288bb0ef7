package hookevent

import (
	"strings"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Hint is what a hook's command line says about its payload: the harness
// whose configuration ran the hook (record-step --harness NAME) and, for a
// dialect that carries no event name (Copilot CLI's camelCase payloads),
// the event the hook was configured for (--event NAME). Both are optional:
// the payload's shape decides first, the hint only where the shape cannot.
type Hint struct {
	Harness string
	Event   string
}

// Harnesses are the names a Hint and session.agent use (kinds.Harnesses).
var Harnesses = kinds.Harnesses

// KnownHarness reports whether name is one of Harnesses.
func KnownHarness(name string) bool { return kinds.KnownHarness(name) }

// eventName returns the event name as the harness gave it: the payload's
// own field, else the hint, else what the shape of a payload without one
// says (Codex's notify program, Copilot CLI's camelCase dialect).
func (b *builder) eventName(hint Hint) string {
	if n := b.str("hook_event_name", "hookEventName"); n != "" {
		return n
	}
	if hint.Event != "" {
		return hint.Event
	}
	if b.has("thread-id") || b.has("last-assistant-message") {
		return b.str("type")
	}
	if b.has("sessionId") {
		return copilotEvent(b)
	}
	return ""
}

// copilotEvent names a Copilot CLI camelCase payload from the fields only
// that event carries (docs.github.com, "GitHub Copilot CLI hooks
// reference"). The installed configuration passes --event, so this is the
// fallback for hand-written ones.
func copilotEvent(b *builder) string {
	switch {
	case b.has("toolResult"):
		return "postToolUse"
	case b.has("toolName") && b.has("error"):
		return "postToolUseFailure"
	case b.has("toolName"):
		return "preToolUse"
	case b.has("agentName") && b.has("stopReason"):
		return "subagentStop"
	case b.has("agentName"):
		return "subagentStart"
	case b.has("stopReason"):
		return "agentStop"
	case b.has("errorContext") || b.has("error"):
		return "errorOccurred"
	case b.has("trigger"):
		return "preCompact"
	case b.has("prompt"):
		return "userPromptSubmitted"
	case b.has("source"):
		return "sessionStart"
	case b.has("reason"):
		return "sessionEnd"
	}
	return ""
}

// harnessOf names the harness that sent the payload, from its shape first:
// Grok Build also runs hooks configured for Claude Code and Cursor, VS Code
// runs Claude Code's and Copilot CLI's, so the configuration that ran a hook
// (the hint) does not say who sent it. Rules, in order:
//   - kebab-case keys (thread-id): Codex's notify program;
//   - hookEventName with a snake_case value: Grok Build (camelCase keys);
//   - conversation_id, cursor_version or workspace_roots: Cursor;
//   - sessionId: Copilot CLI's camelCase dialect (hookEventName with a
//     PascalCase value is VS Code's documented shape);
//   - an event name only one harness uses (BeforeTool: Gemini CLI);
//   - turn_id, a null transcript_path or one under ~/.codex: Codex hooks;
//   - a timestamp field (Claude Code sends none): Gemini CLI, VS Code or
//     Copilot CLI's PascalCase dialect, told apart by the transcript path,
//     else by the hint;
//   - otherwise the hint, else Claude Code.
func harnessOf(b *builder, raw string, hint Hint) string {
	hinted := ""
	if KnownHarness(hint.Harness) {
		hinted = hint.Harness
	}
	switch {
	case b.has("thread-id") || b.has("last-assistant-message"):
		return "codex"
	case b.has("hookEventName"):
		if raw != "" && strings.ToLower(raw) == raw {
			return "grok"
		}
		return "vscode"
	case b.has("conversation_id") || b.has("cursor_version") || b.has("workspace_roots"):
		return "cursor"
	case b.has("sessionId"):
		return "copilot-cli"
	}
	if h := kinds.Harness(raw); h != "" {
		return h
	}
	// Codex: a turn id, a transcript under ~/.codex, or a null transcript
	// path (Claude Code always names its transcript).
	if tp := b.get("transcript_path"); b.has("turn_id") || (tp != nil && tp.Kind == strictjson.Null) ||
		strings.Contains(strings.ReplaceAll(b.str("transcript_path"), `\`, "/"), "/.codex/") {
		return "codex"
	}
	if b.has("timestamp") {
		t := strings.ToLower(strings.ReplaceAll(b.str("transcript_path"), `\`, "/"))
		switch {
		case strings.Contains(t, "copilot-chat"):
			return "vscode"
		case strings.Contains(t, "/.copilot/"):
			return "copilot-cli"
		case strings.Contains(t, "/.gemini/"):
			return "gemini"
		case hinted != "" && hinted != "claude-code":
			return hinted
		}
		return "unknown"
	}
	if hinted != "" {
		return hinted
	}
	return "claude-code"
}

// harnessLabel is the header's harness: the name, and the version when the
// payload gives it (spec §8: session.agent names the harness "and its
// version or model when the events say").
func harnessLabel(b *builder, name string) string {
	if v := b.str("cursor_version"); v != "" && name == "cursor" {
		return name + " " + oneLine(redact.Clip(b.red.String(v), 64))
	}
	return name
}
