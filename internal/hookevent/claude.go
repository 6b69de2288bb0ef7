// Package hookevent turns one harness hook payload (Claude Code's stdin
// JSON) into a step draft: kind, redacted summary and metadata, and body
// digests (spec §8). It takes bytes and returns values: no clock, no files.
package hookevent

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Harness is the value of session.agent's harness part for Claude Code.
const Harness = "claude-code"

// Limits on clear text, in bytes: a record carries metadata, not bodies.
const (
	maxSummary = 200
	maxField   = 1000
)

// MaxPayloadDepth bounds the nesting of a payload. Real payloads nest a
// dozen levels; without a bound, a payload nested a million deep would
// exhaust the reader's stack and crash the hook, and a crashed hook exits
// with a status the harness may read as "block".
const MaxPayloadDepth = 16384

// Event is a parsed hook payload. Step has everything but At.
type Event struct {
	Session string // session_id
	Cwd     string // cwd, "" when absent
	Name    string // hook_event_name, "" when absent
	Step    chain.Step
}

// ErrNotObject is returned for a payload that is JSON but not an object.
var ErrNotObject = errors.New("hook payload is not a JSON object")

// Parse reads a Claude Code hook payload. A payload that is not JSON, or
// not an object, is an error (the caller has no session to put it in); any
// object becomes a step, whatever its event, with missing or null fields
// treated as absent.
func Parse(payload []byte) (Event, error) {
	// Only the top level is kept as values: bodies are digested from their
	// text a level at a time (digest.Body), so a payload of millions of
	// values never becomes a tree of millions of values.
	v, err := strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth}, nil)
	if err != nil {
		return Event{}, fmt.Errorf("hook payload is not JSON: %w", err)
	}
	if v.Kind != strictjson.Object {
		return Event{}, ErrNotObject
	}
	b := builder{src: payload, root: v}
	ev := Event{}
	ev.Session = b.str("session_id")
	ev.Cwd = b.str("cwd")
	ev.Name = b.str("hook_event_name")
	ev.Step = b.step(ev.Name, ev.Cwd)
	return ev, nil
}

type builder struct {
	src  []byte
	root *strictjson.Value
	data []strictjson.Member
	raw  []string // digests taken over exact text (no canonical form)
}

// str returns a top-level string field, "" when absent, null or not a string.
func (b *builder) str(key string) string {
	s, _ := b.root.GetString(key)
	return s
}

// body digests the top-level field key, if present (null included: it is a
// value the harness sent).
func (b *builder) body(key string) []string {
	v := b.root.Get(key)
	if v == nil {
		return nil
	}
	sum, raw := digest.Body(v, b.src)
	if raw {
		b.raw = append(b.raw, sum)
	}
	return []string{sum}
}

// set adds a redacted, bounded string to data; empty values are left out.
func (b *builder) set(key, val string) {
	if val == "" {
		return
	}
	b.data = append(b.data, strictjson.Member{Key: key, Value: strictjson.Str(clip(redact.String(val), maxField))})
}

func (b *builder) setInt(key string) {
	if v := b.root.Get(key); v != nil && v.Kind == strictjson.Number && isInt(v.Str) {
		b.data = append(b.data, strictjson.Member{Key: jsonName(key), Value: strictjson.Value{Kind: strictjson.Number, Str: v.Str}})
	}
}

func (b *builder) step(event, cwd string) chain.Step {
	st := chain.Step{Kind: "note"}
	name := event
	if name == "" {
		name = "(no hook_event_name)"
	}
	b.set("event", name)
	tool := b.str("tool_name")
	var detail string
	switch {
	case toolEvents[event]:
		st.Kind = ToolKind(tool)
		detail = b.toolMeta(tool, cwd)
		st.Inputs = b.body("tool_input")
		if event == "PostToolUse" {
			st.Outputs = b.body("tool_response")
		} else if event == "PostToolUseFailure" {
			st.Outputs = b.body("error")
			if code, ok := exitCode(b.str("error")); ok {
				b.data = append(b.data, strictjson.Member{Key: "exitCode", Value: strictjson.Int(code)})
				detail = fmt.Sprintf("exit %d: %s", code, detail)
			}
		}
		b.setInt("duration_ms")
	case event == "PermissionRequest" || event == "PermissionDenied":
		st.Kind = "gate"
		detail = b.toolMeta(tool, cwd)
		st.Inputs = b.body("tool_input")
		b.set("permissionMode", b.str("permission_mode"))
		b.set("reason", b.str("reason"))
	case event == "UserPromptSubmit":
		st.Kind = eventKinds[event]
		st.Inputs = b.body("prompt")
		detail = "prompt" + sizeNote(b.root.Get("prompt"))
	case event == "Stop" || event == "SubagentStop":
		st.Kind = eventKinds[event]
		st.Outputs = b.body("last_assistant_message")
		b.set("agentId", b.str("agent_id"))
		b.set("agentType", b.str("agent_type"))
		detail = "final message" + sizeNote(b.root.Get("last_assistant_message"))
	case event == "StopFailure":
		st.Outputs = b.body("error")
		b.set("errorType", b.str("error_type"))
		detail = b.str("error_type")
	case event == "SessionStart":
		b.set("source", b.str("source"))
		b.set("model", b.str("model"))
		detail = strings.Trim(b.str("source")+" "+b.str("model"), " ")
	case event == "SessionEnd":
		b.set("reason", b.str("reason"))
		detail = b.str("reason")
	case event == "Notification":
		st.Inputs = b.body("message")
		b.set("notificationType", b.str("notification_type"))
		detail = b.str("notification_type")
	case event == "SubagentStart":
		b.set("agentId", b.str("agent_id"))
		b.set("agentType", b.str("agent_type"))
		detail = b.str("agent_type")
	case event == "PreCompact" || event == "PostCompact":
		b.set("trigger", b.str("trigger"))
		st.Inputs = b.body("custom_instructions")
		if event == "PostCompact" {
			st.Outputs = b.body("compact_summary")
		}
		detail = b.str("trigger")
	default:
		// An event this recorder does not know yet: kept, named, and its
		// tool fields digested so nothing it carried is lost.
		if tool != "" {
			detail = b.toolMeta(tool, cwd)
			st.Inputs = b.body("tool_input")
			st.Outputs = b.body("tool_response")
		}
	}
	if len(b.raw) > 0 {
		b.data = append(b.data, strictjson.Member{Key: "rawDigests", Value: strictjson.StrArr(b.raw)})
	}
	st.Data = strictjson.Obj(b.data...)
	sum := name
	if tool != "" {
		sum += " " + tool
	}
	if detail != "" {
		sum += ": " + detail
	}
	st.Summary = clip(redact.String(oneLine(sum)), maxSummary)
	return st
}

// toolMeta records the tool's name, call id and the few input fields that
// say what it touched, and returns a short detail for the summary.
func (b *builder) toolMeta(tool, cwd string) string {
	b.set("tool", tool)
	b.set("toolUseId", b.str("tool_use_id"))
	shallow := b.root.Get("tool_input")
	if shallow == nil || shallow.Kind != strictjson.Object {
		return ""
	}
	in, err := strictjson.Shallow(b.src[shallow.Start:shallow.End], strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth, Depth: 1}, nil)
	if err != nil {
		return "" // unreachable: the payload was read whole already
	}
	get := func(k string) string { s, _ := in.GetString(k); return s }
	var detail string
	if p := firstOf(get("file_path"), get("notebook_path"), get("path")); p != "" {
		// Redacted before it is shortened: cleaning a path joins the "//"
		// of a URL inside it, which hides a password from the URL rule.
		rel := relPath(redact.String(p), cwd)
		b.set("path", rel)
		detail = rel
	}
	if c := get("command"); c != "" {
		b.set("command", c)
		detail = c
	}
	if p := get("pattern"); p != "" {
		b.set("pattern", p)
		if detail == "" {
			detail = p
		}
	}
	if u := get("url"); u != "" {
		b.set("url", u)
		detail = u
	}
	if t := get("subagent_type"); t != "" {
		b.set("subagentType", t)
		detail = t
	}
	return oneLine(detail)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// relPath makes p relative to cwd when it lies inside it, for POSIX and
// Windows paths alike (hook payloads come from both; Windows paths compare
// without regard to case).
func relPath(p, cwd string) string {
	if cwd == "" {
		return p
	}
	windows := strings.Contains(cwd, `\`)
	np := strings.ReplaceAll(p, `\`, "/")
	nc := strings.TrimSuffix(strings.ReplaceAll(cwd, `\`, "/"), "/")
	same := func(a, b string) bool {
		if windows {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	if same(np, nc) {
		return "."
	}
	if len(np) > len(nc) && np[len(nc)] == '/' && same(np[:len(nc)], nc) {
		return path.Clean(np[len(nc)+1:])
	}
	return p
}

// exitCode reads Claude Code's "Exit code N" prefix of a failed Bash call.
func exitCode(errText string) (int64, bool) {
	const prefix = "Exit code "
	if !strings.HasPrefix(errText, prefix) {
		return 0, false
	}
	var n int64
	digits := 0
	for _, c := range errText[len(prefix):] {
		if c < '0' || c > '9' || digits == 9 {
			break
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	return n, digits > 0
}

func sizeNote(v *strictjson.Value) string {
	if v == nil || v.Kind != strictjson.String {
		return ""
	}
	return fmt.Sprintf(" (%d bytes)", len(v.Str))
}

// isInt: an integer literal a record may hold (spec §2: within ±(2^53-1)).
func isInt(lit string) bool {
	n, err := strconv.ParseInt(lit, 10, 64)
	return err == nil && n <= 1<<53-1 && n >= -(1<<53-1)
}

// jsonName turns snake_case into the camelCase used in data.
func jsonName(k string) string {
	parts := strings.Split(k, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// oneLine folds line breaks so a summary stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " ")
}

// clip bounds s to max bytes on a UTF-8 boundary, marking the cut. It runs
// after redaction, so a secret is never cut short of its pattern.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
