package kinds

import "strings"

// A Dialect is everything the recorder knows about one harness: its name,
// the event and tool names and payload keys it uses, how its payloads are
// told from other harnesses', what its session start can show. Each
// harness has one file,
// dialect_NAME.go, and one line in registry; its install spec lives in
// internal/hookconf/dialect_NAME.go (docs/harnesses.md says why two).
//
// Every value is a literal laid out at build time: record-step reads these
// tables on every event and builds nothing at start-up but the order of
// the detection rules and the merged field keys (Keys).
type Dialect struct {
	Name   string  // as record-step --harness and session.agent spell it
	Events []Event // its own event names, mapped onto Claude Code's
	Tools  []Tool  // its tool names that are not tool_calls
	// Fields are the payload keys it sends the fields the recorder reads
	// under, beyond generalFields' (fields.go).
	Fields Fields
	// Rules say which payloads are this harness's, each at a place
	// (Order) in the one ordered set that Detect tries, lowest first.
	Rules []Rule
	// Unnamed names the event of a payload of this dialect that carries
	// no event name (ok: the payload has this dialect's shape).
	Unnamed func(p Payload) (event string, ok bool)
	// Version is the payload field that gives the harness's version,
	// shown after its name in session.agent.
	Version string
	// StartMessage: the harness shows the user a session-start hook's
	// JSON "systemMessage" (see SystemMessage).
	StartMessage bool
	// Gate is how its hook blocks a call, or asks about one, for the
	// organization policy (gate.go; orgpolicy.AnswerFor). Required.
	Gate Gate
}

// Event maps one of a harness's event names to Claude Code's.
type Event struct {
	Name      string // as the harness sends it
	Canonical string // the Claude Code event it maps to
	Kind      string // for an event that stands for one kind of tool call (Cursor's shell, read, edit and MCP events)
}

// Tool maps a tool name, as the harness gives it, to a step kind: shell →
// exec, file edit → edit, file creation/overwrite → write, file read or
// listing → read. A tool no dialect lists (search, web, MCP, sub-agents,
// task lists) is a tool_call. Names are case-sensitive ("Edit" is Claude
// Code's tool, "edit" Copilot CLI's); where two harnesses use one name
// they mean the same kind of tool (TestOneTable).
type Tool struct{ Name, Kind string }

// Rule is one test of detection: a payload for which Match holds is the
// harness's. Orders are unique across the registry (TestOneTable).
type Rule struct {
	Order int
	Match func(s Shape) bool
}

// Payload is the top level of a hook payload, as detection reads it.
type Payload interface {
	Has(key string) bool   // the field is present (null included)
	Str(key string) string // the field's string value, "" when absent, empty or not a string
	Null(key string) bool  // the field is present and null
}

// Shape is what detection sees: the payload, its event name as the
// harness gave it, and the --harness hint when it names a known harness.
type Shape struct {
	Payload
	Event string
	Hint  string
}

// registry is the one list of dialects, in the order the recorder names
// harnesses (Harnesses, install, synth, help texts).
var registry = [...]*Dialect{
	&claudeCode,
	&codex,
	&gemini,
	&cursor,
	&copilotCLI,
	&vscode,
	&grok,
}

// generalRules are the detection rules no one harness owns, at their
// places among the dialects' rules (see Detect).
var generalRules = [...]struct {
	order int
	match func(s Shape) string
}{
	// An event name only one harness uses (BeforeTool: Gemini CLI).
	{50, func(s Shape) string { return Harness(s.Event) }},
	// A timestamp (Claude Code sends none) that the transcript path did
	// not place (rules 71-73): the hint, unless it says Claude Code.
	{78, func(s Shape) string {
		if s.Has("timestamp") && s.Hint != "" && s.Hint != "claude-code" {
			return s.Hint
		}
		return ""
	}},
	{79, func(s Shape) string {
		if s.Has("timestamp") {
			return "unknown"
		}
		return ""
	}},
	// Otherwise the configuration that ran the hook (rule 100: Claude
	// Code when none is given).
	{90, func(s Shape) string { return s.Hint }},
}

// rule is one place in the ordered set: a dialect's Match, or a general
// rule that names the harness itself.
type rule struct {
	order   int
	harness string
	match   func(s Shape) bool
	general func(s Shape) string
}

// rules is every detection rule, in order: put in order once, at start-up
// (a dozen entries).
var rules = func() []rule {
	out := make([]rule, 0, 16)
	for _, d := range registry {
		for _, r := range d.Rules {
			out = append(out, rule{order: r.Order, harness: d.Name, match: r.Match})
		}
	}
	for _, g := range generalRules {
		out = append(out, rule{order: g.order, general: g.match})
	}
	// Insertion sort: a dozen rules, and no sort code linked into
	// record-step for them.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].order < out[j-1].order; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}()

// Harnesses are the names a hook hint and session.agent use.
var Harnesses = func() []string {
	out := make([]string, len(registry))
	for i, d := range registry {
		out[i] = d.Name
	}
	return out
}()

// Lookup returns the dialect of a harness, nil for an unknown name.
func Lookup(name string) *Dialect {
	for _, d := range registry {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// KnownHarness reports whether name is one of Harnesses.
func KnownHarness(name string) bool { return Lookup(name) != nil }

// Detect names the harness that sent a payload, from its shape first:
// Grok Build also runs hooks configured for Claude Code and Cursor, VS
// Code runs Claude Code's and Copilot CLI's, so the configuration that ran
// a hook (hint) does not say who sent it. The rules, in order, are in the
// dialect files (each with its Order) and generalRules; the first that
// names a harness decides. "unknown": a timestamped payload nothing
// places.
func Detect(p Payload, event, hint string) string {
	s := Shape{Payload: p, Event: event}
	if KnownHarness(hint) {
		s.Hint = hint
	}
	for _, r := range rules {
		if r.match != nil && r.match(s) {
			return r.harness
		}
		if r.general != nil {
			if h := r.general(s); h != "" {
				return h
			}
		}
	}
	return "claude-code" // unreachable: claude-code's rule matches every payload
}

// EventName names the event of a payload that carries no event name, from
// the shape of the first dialect (in registry order) that claims it.
func EventName(p Payload) string {
	for _, d := range registry {
		if d.Unnamed == nil {
			continue
		}
		if name, ok := d.Unnamed(p); ok {
			return name
		}
	}
	return ""
}

// ToolKind returns the step kind of a tool call.
func ToolKind(tool string) string {
	for _, d := range registry {
		for _, t := range d.Tools {
			if t.Name == tool {
				return t.Kind
			}
		}
	}
	return "tool_call"
}

// eventOf looks name up in every dialect's events; an unlisted name is its
// own canonical name (Claude Code's events, Codex hooks, VS Code, Copilot
// CLI's PascalCase dialect) or an unknown event, still recorded as a note
// that names it. harness is the one dialect that lists the name, "" when
// several do or none.
func eventOf(name string) (ev Event, harness string) {
	ev = Event{Name: name, Canonical: name}
	found := false
	for _, d := range registry {
		for _, e := range d.Events {
			if e.Name != name {
				continue
			}
			if found {
				return ev, ""
			}
			ev, harness, found = e, d.Name, true
			break
		}
	}
	return ev, harness
}

// transcript is the payload's transcript path with forward slashes.
func transcript(s Shape) string {
	return strings.ReplaceAll(s.Str("transcript_path"), `\`, "/")
}
