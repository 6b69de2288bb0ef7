// Package hookevent turns one harness hook payload into a step draft: kind,
// redacted summary and metadata, and body digests (spec §8). It reads every
// dialect the recorder supports — Claude Code, Codex CLI hooks and its
// notify program, Gemini CLI, Cursor, Copilot CLI (both dialects), VS Code
// and Grok Build — and maps each onto Claude Code's events and the kinds
// of kinds.go, so every harness gives the same record. It takes bytes and
// returns values: no clock, no files.
package hookevent

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
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
	Session string // the harness's session id
	Cwd     string // cwd, "" when absent
	Name    string // the event as Claude Code names it (kinds.go), "" when the payload names none
	Harness string // who sent it, for session.agent: "claude-code", "cursor 2.0.77", …
	// User is who the payload says the user is (Cursor's user_email, a
	// "user" field), "" when it says nothing: a claim nobody checked,
	// which a server records as the actor's asserted identity.
	User string
	Step chain.Step
}

// ErrNotObject is returned for a payload that is JSON but not an object.
var ErrNotObject = errors.New("hook payload is not a JSON object")

// Parse reads a hook payload with no hint from the command line.
func Parse(payload []byte) (Event, error) { return ParseWith(payload, Hint{}) }

// ParseWith reads a hook payload of any supported dialect with the
// built-in redaction rules. A payload that is not JSON, or not an object,
// is an error (the caller has no session to put it in); any object becomes
// a step, whatever its event, with missing or null fields treated as
// absent.
func ParseWith(payload []byte, hint Hint) (Event, error) { return ParseRedacted(payload, hint, nil) }

// ParseRedacted is ParseWith with red's rules (a project's patterns; nil:
// the built-in rules) applied to every clear string of the step: the
// summary, every data value and the harness label.
func ParseRedacted(payload []byte, hint Hint, red *redact.Redactor) (Event, error) {
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
	b := builder{src: payload, root: v, red: red}
	b.lastWins(v, "")
	raw := b.eventName(hint)
	event, implied := kinds.Canonical(raw)
	if event == "PostToolUse" && b.responseFailed(raw) {
		event = "PostToolUseFailure"
	}
	ev := Event{Name: event}
	ev.Session = b.field(keys.Session)
	ev.Cwd = b.cwd()
	ev.User = b.str("user_email", "userEmail", "user")
	ev.Harness = harnessLabel(&b, harnessOf(&b, raw, hint))
	ev.Step = b.step(raw, event, implied, ev.Cwd)
	return ev, nil
}

type builder struct {
	red     *redact.Redactor // nil: the built-in rules
	src     []byte
	root    *strictjson.Value
	data    []strictjson.Member
	raw     []string // digests taken over exact text (no canonical form)
	decoded []string // digests of bodies sent as JSON text inside a string
	dups    []string // keys named twice, where the payload is read (lastWins)
}

// nameOf names a top-level field of the payload by its key ("?" when v
// is not one), for data.duplicateKeys.
func (b *builder) nameOf(v *strictjson.Value) string {
	for i := range b.root.Members {
		if &b.root.Members[i].Value == v {
			return b.root.Members[i].Key
		}
	}
	return "?"
}

// lastWins makes the object v (read one level deep) name each key once,
// the last value winning, as the harness's own JSON.parse read it: the
// step must record what the harness acted on. A repeated key is listed
// (under prefix, the field v is) in data.duplicateKeys, so a reviewer
// sees the payload was odd. The duplicated text is still in the digests:
// a body holding it has no canonical form and is digested raw.
func (b *builder) lastWins(v *strictjson.Value, prefix string) {
	for _, k := range v.LastWins() {
		b.dups = append(b.dups, redact.Clip(b.red.String(prefix+k), maxField))
	}
}

// keys are the first-match lists each field is read by: every dialect's
// keys, in the order the dialect files give them (kinds.Keys).
var keys = &kinds.Keys

// agentResponse: Cursor's afterAgentResponse carries its message in "text".
var agentResponse = []kinds.FieldKey{{Key: "text"}}

// get returns the first of the top-level fields names that is present
// (null included), nil when none is.
func (b *builder) get(names ...string) *strictjson.Value {
	for _, k := range names {
		if v := b.root.Get(k); v != nil {
			return v
		}
	}
	return nil
}

// getKey returns the first of a field's keys that is present at the top
// level (null included), and its value; nil when none is.
func (b *builder) getKey(field []kinds.FieldKey) (string, *strictjson.Value) {
	for _, k := range field {
		if v := b.root.Get(k.Key); v != nil {
			return k.Key, v
		}
	}
	return "", nil
}

// getOf is getKey's value.
func (b *builder) getOf(field []kinds.FieldKey) *strictjson.Value {
	_, v := b.getKey(field)
	return v
}

// field returns the first of a field's keys that is a non-empty string at
// the top level, "" when none is.
func (b *builder) field(field []kinds.FieldKey) string {
	for _, k := range field {
		if s, ok := b.root.GetString(k.Key); ok && s != "" {
			return s
		}
	}
	return ""
}

func (b *builder) has(key string) bool { return b.root.Get(key) != nil }

// str returns the first of the top-level string fields names that is a
// non-empty string, "" when none is.
func (b *builder) str(names ...string) string {
	for _, k := range names {
		if s, ok := b.root.GetString(k); ok && s != "" {
			return s
		}
	}
	return ""
}

// cwd is the first of the dialects' working-directory fields (kinds.Keys)
// that gives one: a string, or an array's first item (Cursor's
// workspace_roots).
func (b *builder) cwd() string {
	for _, k := range keys.Cwd {
		if !k.First {
			if c := b.str(k.Key); c != "" {
				return c
			}
			continue
		}
		if r := b.get(k.Key); r != nil && r.Kind == strictjson.Array {
			first := ""
			_, _ = strictjson.Shallow(b.src[r.Start:r.End], strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth, Depth: 1}, func(i int, item *strictjson.Value) error {
				if i == 0 && item.Kind == strictjson.String {
					first = item.Str
				}
				return nil
			})
			if first != "" {
				return first
			}
		}
	}
	return ""
}

// body digests the first present top-level field of names (null
// included: it is a value the harness sent).
func (b *builder) body(names ...string) []string { return b.digestOf(b.get(names...)) }

// bodyOf digests the first present of a field's keys (as body).
func (b *builder) bodyOf(field []kinds.FieldKey) []string { return b.digestOf(b.getOf(field)) }

func (b *builder) digestOf(v *strictjson.Value) []string {
	if v == nil {
		return nil
	}
	return []string{b.digest(v, b.src)}
}

func (b *builder) digest(v *strictjson.Value, src []byte) string {
	sum, raw := digest.Body(v, src)
	if raw {
		b.raw = append(b.raw, sum)
	}
	return sum
}

// jsonText reads a string that holds a JSON object or array: Cursor sends
// MCP tool inputs and tool results that way, Copilot CLI its tool
// arguments. The decoded value is the body, so it is what gets digested
// (listed in data.decodedDigests), and its fields can be read for the
// clear-text metadata. ok is false for any other string.
func (b *builder) jsonText(v *strictjson.Value) (sum string, view objView, ok bool) {
	if v == nil || v.Kind != strictjson.String || v.Flags != 0 {
		return "", objView{}, false
	}
	s := strings.TrimLeft(v.Str, " \t\r\n")
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return "", objView{}, false
	}
	text := []byte(v.Str)
	dv, err := strictjson.Shallow(text, strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth}, nil)
	if err != nil {
		return "", objView{}, false
	}
	b.lastWins(dv, b.nameOf(v)+".")
	sum = b.digest(dv, text)
	b.decoded = append(b.decoded, sum)
	return sum, objView{dv, text}, true
}

// objView is an object read one level deep, with the text it came from.
type objView struct {
	v   *strictjson.Value
	src []byte
}

func (o objView) str(key string) string {
	if s, ok := o.v.GetString(key); ok && s != "" {
		return s
	}
	return ""
}

// field is the first of a field's keys that is a non-empty string in o.
func (o objView) field(field []kinds.FieldKey) string {
	for _, k := range field {
		if s := o.str(k.Key); s != "" {
			return s
		}
	}
	return ""
}

// object reads the top-level object field v one level deep.
func (b *builder) object(v *strictjson.Value) objView {
	if v == nil || v.Kind != strictjson.Object {
		return objView{}
	}
	in, err := strictjson.Shallow(b.src[v.Start:v.End], strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth, Depth: 1}, nil)
	if err != nil {
		return objView{} // unreachable: the payload was read whole already
	}
	b.lastWins(in, b.nameOf(v)+".")
	return objView{in, b.src[v.Start:v.End]}
}

// set adds a redacted, bounded string to data; empty values are left out.
func (b *builder) set(key, val string) {
	if val == "" {
		return
	}
	b.data = append(b.data, strictjson.Member{Key: key, Value: strictjson.Str(redact.Clip(b.red.String(val), maxField))})
}

// setInt records v as data[name] when it is an integer.
func (b *builder) setInt(name string, v *strictjson.Value) {
	if v != nil && v.Kind == strictjson.Number && isInt(v.Str) {
		b.data = append(b.data, strictjson.Member{Key: name, Value: strictjson.Value{Kind: strictjson.Number, Str: v.Str}})
	}
}

func (b *builder) step(raw, event, implied, cwd string) chain.Step {
	st := chain.Step{Kind: "note"}
	name := event
	if name == "" {
		name = "(no hook_event_name)"
	}
	b.set("event", name)
	if raw != event {
		b.set("harnessEvent", raw)
	}
	tool := b.field(keys.ToolName)
	var detail string
	switch {
	case kinds.ToolEvent(event):
		st.Kind = implied
		if st.Kind == "" {
			st.Kind = kinds.ToolKind(tool)
		}
		var view objView
		st.Inputs, view = b.toolInput(implied)
		detail = b.toolMeta(tool, cwd, view)
		switch {
		case event == "PostToolUse":
			st.Outputs = b.toolOutput()
		case event == "PostToolUseFailure" && b.responseFailed(raw):
			st.Outputs = b.toolOutput() // the failure is inside the tool's response
		case event == "PostToolUseFailure":
			st.Outputs = b.bodyOf(keys.ToolError)
			if code, ok := exitCode(b.str("error")); ok {
				b.data = append(b.data, strictjson.Member{Key: "exitCode", Value: strictjson.Int(code)})
				detail = fmt.Sprintf("exit %d: %s", code, detail)
			}
		case implied == "read":
			st.Outputs = b.body("content") // Cursor's beforeReadFile carries the file
		}
		if raw == "AfterTool" {
			if code, ok := geminiExitCode(b.object(b.get("tool_response"))); ok {
				b.data = append(b.data, strictjson.Member{Key: "exitCode", Value: strictjson.Int(code)})
				detail = fmt.Sprintf("exit %d: %s", code, detail)
			}
		}
		b.setInt("durationMs", b.getOf(keys.Duration))
	case event == "PermissionRequest" || event == "PermissionDenied":
		st.Kind = "gate"
		var view objView
		st.Inputs, view = b.toolInput("")
		detail = b.toolMeta(tool, cwd, view)
		b.set("permissionMode", b.field(keys.PermissionMode))
		b.set("reason", b.str("reason"))
	case event == "UserPromptSubmit":
		st.Kind = kinds.EventKind(event)
		st.Inputs = b.bodyOf(keys.Prompt)
		b.set("model", b.str("model"))
		detail = "prompt" + sizeNote(b.getOf(keys.Prompt))
	case kinds.EventKind(event) == "claim":
		st.Kind = "claim"
		finals := keys.Final
		if event == "AgentResponse" {
			finals = agentResponse
		}
		st.Inputs = b.bodyOf(keys.ClaimInput)
		st.Outputs = b.bodyOf(finals)
		b.set("reason", b.field(keys.StopReason))
		b.set("client", b.str("client"))
		detail = "final message" + sizeNote(b.getOf(finals))
	case event == "StopFailure":
		st.Outputs = append(b.body("error"), b.bodyOf(keys.ErrorDetails)...)
		b.set("errorType", b.str("error_type"))
		detail = b.str("error_type")
	case event == "SessionStart":
		b.set("source", b.str("source"))
		b.set("model", b.str("model"))
		st.Inputs = b.bodyOf(keys.InitialPrompt)
		detail = strings.Trim(b.str("source")+" "+b.str("model"), " ")
	case event == "SessionEnd":
		b.set("reason", b.str("reason"))
		b.setInt("durationMs", b.get("duration_ms"))
		detail = b.str("reason")
	case event == "Notification":
		st.Inputs = append(b.body("message"), b.body("details")...)
		b.set("notificationType", b.field(keys.NotificationType))
		detail = b.field(keys.NotificationType)
	case event == "SubagentStart":
		st.Inputs = b.body("task")
		detail = b.field(keys.AgentType)
	case event == "PreCompact" || event == "PostCompact":
		b.set("trigger", b.str("trigger"))
		st.Inputs = b.bodyOf(keys.Instructions)
		if event == "PostCompact" {
			st.Outputs = b.body("compact_summary")
		}
		detail = b.str("trigger")
	case event == "ErrorOccurred":
		st.Outputs = b.body("error")
		b.set("errorContext", b.field(keys.ErrorContext))
		detail = b.field(keys.ErrorContext)
	case event == "AgentThought":
		st.Outputs = b.body("text")
	case laterEvent(event) != nil:
		detail = laterEvent(event)(b, &st, cwd)
	default:
		// An event this recorder does not know yet: kept, named (and
		// marked unknown, so a reader sees that nothing here says what it
		// means), and its tool fields digested so nothing it carried is
		// lost.
		if !kinds.Known(event) && event != "" {
			b.data = append(b.data, strictjson.Member{Key: "unknownEvent", Value: strictjson.Value{Kind: strictjson.True}})
		}
		if tool != "" {
			var view objView
			st.Inputs, view = b.toolInput("")
			detail = b.toolMeta(tool, cwd, view)
			st.Outputs = b.toolOutput()
		}
	}
	// Every event a sub-agent's work sends (its tool calls too) names the
	// agent, so its steps can be told from the main agent's; Claude Code's
	// prompt_id ties each event to the user turn that caused it.
	b.set("agentId", b.field(keys.AgentID))
	b.set("agentType", b.field(keys.AgentType))
	b.set("turnId", b.field(keys.TurnID))
	b.harnessTime()
	if len(b.raw) > 0 {
		b.data = append(b.data, strictjson.Member{Key: "rawDigests", Value: strictjson.StrArr(b.raw)})
	}
	if len(b.decoded) > 0 {
		b.data = append(b.data, strictjson.Member{Key: "decodedDigests", Value: strictjson.StrArr(b.decoded)})
	}
	if len(b.dups) > 0 {
		b.data = append(b.data, strictjson.Member{Key: "duplicateKeys", Value: strictjson.StrArr(b.dups)})
	}
	st.Data = strictjson.Obj(b.data...)
	sum := name
	if tool != "" {
		sum += " " + tool
	}
	if detail != "" {
		sum += ": " + detail
	}
	// Redacted first, before it is joined into one line or shortened: a
	// secret is recognised in the text as it was sent.
	st.Summary = redact.Clip(oneLine(b.red.String(sum)), maxSummary)
	return st
}

// harnessTime keeps the payload's own timestamp beside the step's at:
// ISO 8601 text (Gemini CLI, VS Code, Grok Build) or Unix milliseconds
// (Copilot CLI), as given.
func (b *builder) harnessTime() {
	v := b.get("timestamp")
	switch {
	case v == nil:
	case v.Kind == strictjson.String:
		b.set("harnessTimestamp", v.Str)
	case v.Kind == strictjson.Number && isInt(v.Str):
		b.data = append(b.data, strictjson.Member{Key: "harnessTimestamp", Value: strictjson.Value{Kind: strictjson.Number, Str: v.Str}})
	}
}

// toolInput digests a tool call's input and returns it read one level
// deep for toolMeta. Cursor's shell, read and edit events (implied kind)
// carry their input at the top level instead: the command, or the edits.
func (b *builder) toolInput(implied string) ([]string, objView) {
	v := b.getOf(keys.ToolInput)
	if v == nil && implied != "" && implied != "tool_call" {
		return b.bodyOf(keys.ImpliedInput), objView{b.root, b.src}
	}
	if v == nil {
		return nil, objView{}
	}
	if sum, view, ok := b.jsonText(v); ok {
		return []string{sum}, view
	}
	return []string{b.digest(v, b.src)}, b.object(v)
}

// toolOutput digests a tool call's response: Claude Code's, Codex's,
// Gemini's and VS Code's tool_response, Copilot CLI's toolResult or
// tool_result, Grok's toolResult, Cursor's tool_output and result_json
// (JSON text in a string) or a shell's raw output. Grok gives a shell's
// output as an array of byte values: the SHA-256 of those bytes follows
// the response's digest, so the output can be checked against the bytes
// the command printed.
func (b *builder) toolOutput() []string {
	key, v := b.getKey(keys.ToolOutput)
	if v == nil {
		return nil
	}
	if key == "tool_output" || key == "result_json" {
		if sum, _, ok := b.jsonText(v); ok {
			return []string{sum}
		}
	}
	out := []string{b.digest(v, b.src)}
	if key != "toolResult" || v.Kind != strictjson.Object {
		return out
	}
	if raw, ok := byteOutput(b.object(v)); ok {
		out = append(out, digest.Bytes(raw))
		b.data = append(b.data, strictjson.Member{Key: "outputBytes", Value: strictjson.Int(int64(len(raw)))})
	}
	return out
}

// byteOutput decodes a tool result's "output" given as an array of
// integers 0-255 (Grok Build), one item at a time.
func byteOutput(res objView) ([]byte, bool) {
	out := res.v.Get("output")
	if out == nil || out.Kind != strictjson.Array || out.End-out.Start < 3 {
		return nil, false
	}
	var raw []byte
	_, err := strictjson.Shallow(res.src[out.Start:out.End], strictjson.Options{MaxDepth: MaxPayloadDepth, Depth: 2}, func(_ int, item *strictjson.Value) error {
		n, err := strconv.Atoi(item.Str)
		if item.Kind != strictjson.Number || err != nil || n < 0 || n > 255 || strings.ContainsAny(item.Str, ".eE-") {
			return errNotBytes
		}
		raw = append(raw, byte(n))
		return nil
	})
	return raw, err == nil && len(raw) > 0
}

var errNotBytes = errors.New("not a byte array")

// responseFailed reports a tool call that failed although the harness
// sent its post-event: Gemini CLI's tool_response carries an error, Copilot
// CLI's result type is not "success". Claude Code sends such calls as
// PostToolUseFailure, and so they are recorded.
func (b *builder) responseFailed(raw string) bool {
	key, v := b.getKey(keys.ToolResult)
	if key == "tool_response" && raw != "AfterTool" {
		return false // only Gemini's tool_response reports a failure inside
	}
	res := b.object(v)
	if res.v == nil {
		return false
	}
	if e := res.v.Get("error"); e != nil && e.Kind != strictjson.Null && !(e.Kind == strictjson.String && e.Str == "") && e.Kind != strictjson.False {
		return true
	}
	if t := res.field(keys.ResultType); t != "" && t != "success" {
		return true
	}
	if code, ok := geminiExitCode(res); ok && code != 0 {
		return true
	}
	return false
}

// toolMeta records the tool's name, call id and the few input fields that
// say what it touched, and returns a short detail for the summary.
func (b *builder) toolMeta(tool, cwd string, in objView) string {
	b.set("tool", tool)
	b.set("toolUseId", b.field(keys.ToolUseID))
	if in.v == nil || in.v.Kind != strictjson.Object {
		return ""
	}
	var detail string
	if p := in.field(keys.Path); p != "" {
		// Redacted before it is shortened: cleaning a path joins the "//"
		// of a URL inside it, which hides a password from the URL rule.
		rel := relPath(b.red.String(p), cwd)
		b.set("path", rel)
		detail = rel
	}
	if patchTools[tool] {
		// The "command" of a patch tool is the patch: a body. Only the
		// files it names are recorded.
		if files := patchFiles(in.field(keys.Patch)); len(files) > 0 {
			for i := range files {
				files[i] = relPath(b.red.String(files[i]), cwd)
			}
			b.set("path", files[0])
			if len(files) > 1 {
				b.data = append(b.data, strictjson.Member{Key: "paths", Value: strictjson.StrArr(b.redactAll(files))})
			}
			detail = strings.Join(files, ", ")
		}
	} else if c := in.str("command"); c != "" {
		b.set("command", c)
		detail = c
	}
	if p := in.str("pattern"); p != "" {
		b.set("pattern", p)
		if detail == "" {
			detail = p
		}
	}
	if u := in.str("url"); u != "" {
		b.set("url", u)
		detail = u
	}
	if t := in.str("subagent_type"); t != "" {
		b.set("subagentType", t)
		detail = t
	}
	return oneLine(detail)
}

// patchTools are tools whose input is a patch (Codex's apply_patch).
var patchTools = map[string]bool{"apply_patch": true}

// patchFiles lists the files an apply_patch patch names, in order.
func patchFiles(patch string) []string {
	var files []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(line, p); ok && f != "" && len(files) < 100 {
				files = append(files, f)
			}
		}
	}
	return files
}

func (b *builder) redactAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = redact.Clip(b.red.String(s), maxField)
	}
	return out
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

// oneLine folds line breaks so a summary stays one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " ")
}

// SessionOf returns the payload's session id as ParseWith reads it, ""
// when it names none or is not a JSON object; it reads the top level only
// and digests nothing (record-step --server keys its per-session counts
// by it before it forwards the payload).
func SessionOf(payload []byte) string {
	v, err := strictjson.Shallow(payload, strictjson.Options{Lenient: true, MaxDepth: MaxPayloadDepth}, nil)
	if err != nil || v.Kind != strictjson.Object {
		return ""
	}
	v.LastWins() // as ParseWith reads a repeated key: its last value
	b := builder{src: payload, root: v}
	return b.field(keys.Session)
}
