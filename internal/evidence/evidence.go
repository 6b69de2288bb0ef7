// Package evidence checks a Claude Code transcript against a record: for
// each step, whether the transcript holds a body whose spec §8 digest is
// the one recorded. The transcript is turned into the hook payloads
// Claude Code sends (internal/transcript) and each payload into the
// digests the recorder takes (internal/hookevent), so a body is digested
// exactly as it was when it was recorded.
//
// A record holds digests only; a transcript holds the bodies. A match
// proves the transcript's body is the recorded one; a difference proves
// one of them changed (or the harness changed the body between its
// transcript and its hooks: see Normalizations). Nothing of a body is
// returned unless the caller asks for it.
package evidence

import (
	"bytes"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/transcript"
)

// Status of a body, or of a call.
const (
	Matched = "matched"
	Differs = "differs"
	Absent  = "absent"
)

// Body is one recorded digest and what the transcript says of it.
type Body struct {
	Seq        int64  `json:"seq"`
	Event      string `json:"event"`
	Role       string `json:"role"` // "input" or "output"
	Status     string `json:"status"`
	Recorded   string `json:"recorded"`
	Transcript string `json:"transcript,omitempty"` // the transcript body's digest, when it differs
	Note       string `json:"note,omitempty"`       // e.g. "harness-added fields: replace_all"
	body       []byte // the transcript's body text, for --show-bodies
}

// Item is a tool call (by toolUseId), a prompt, or a final message.
type Item struct {
	What      string `json:"what"` // "call", "prompt", "final message", or another event
	ToolUseID string `json:"toolUseId,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Status    string `json:"status"`
	Bodies    []Body `json:"bodies"`
}

// Report is the whole check.
type Report struct {
	Items   []Item         `json:"items"`
	Summary map[string]int `json:"summary"` // "calls matched" etc.
	// Transcript counts what the transcript held that the record does not
	// name (tool calls by toolUseId).
	NotRecorded []string `json:"notRecorded"`
}

// OK reports whether nothing differs: every body the transcript holds
// is the recorded one. Absent bodies are reported, not failed: a
// transcript may be cut, or keep only the text the model saw.
func (r *Report) OK() bool {
	for _, it := range r.Items {
		if it.Status == Differs {
			return false
		}
	}
	return true
}

// Complete reports whether every recorded body was found and matched.
func (r *Report) Complete() bool {
	for _, it := range r.Items {
		if it.Status != Matched {
			return false
		}
	}
	return true
}

// digests of one transcript event, as the recorder would take them.
type side struct {
	in, out       []string
	inRaw, outRaw []byte
	tool          string
	rawIn         []byte // the tool input's text, for normalization
	textOnly      bool   // the output is the text the model saw, not the tool's result
}

type index struct {
	tool  map[string]*side   // event + "\x00" + toolUseId
	other map[string][]*side // by event, in order
	ids   map[string]bool
	all   map[string][]byte // every body digest the transcript gives, with its text
}

// Build digests every transcript event.
func build(events []transcript.Event) (*index, error) {
	ix := &index{tool: map[string]*side{}, other: map[string][]*side{}, ids: map[string]bool{}, all: map[string][]byte{}}
	for i := range events {
		// A fresh buffer each time: the parsed event's strings point
		// into the payload's bytes.
		var buf bytes.Buffer
		if err := transcript.WriteJSONL(&buf, events[i:i+1]); err != nil {
			return nil, err
		}
		ev, err := hookevent.Parse(bytes.TrimRight(buf.Bytes(), "\n"))
		if err != nil {
			return nil, err
		}
		e := &events[i]
		s := &side{in: ev.Step.Inputs, out: ev.Step.Outputs, tool: e.ToolName, rawIn: e.ToolInput, textOnly: e.ResponseFromText}
		switch {
		case e.ToolUseID != "" && (ev.Name == "PreToolUse" || ev.Name == "PostToolUse" || ev.Name == "PostToolUseFailure"):
			s.inRaw = e.ToolInput
			s.outRaw = e.ToolResponse
			if ev.Name == "PostToolUseFailure" {
				s.outRaw = e.Error
			}
			ix.tool[ev.Name+"\x00"+e.ToolUseID] = s
			ix.ids[e.ToolUseID] = true
			for _, d := range s.in {
				ix.all[d] = s.inRaw
			}
			if !s.textOnly {
				for _, d := range s.out {
					ix.all[d] = s.outRaw
				}
			}
			if c := bytes.TrimSpace(e.ResultContent); len(c) > 0 {
				if v, err := strictjson.Shallow(c, strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth}, nil); err == nil {
					sum, _ := digest.Body(v, c)
					ix.all[sum] = c
				}
			}
		default:
			s.inRaw = e.Prompt
			s.outRaw = e.LastAssistantMessage
			ix.other[ev.Name] = append(ix.other[ev.Name], s)
			for _, d := range s.in {
				ix.all[d] = s.inRaw
			}
			for _, d := range s.out {
				ix.all[d] = s.outRaw
			}
		}
	}
	return ix, nil
}

// Check compares the record's steps with the transcript's events; raw
// are further bodies of the transcript (RawBodies), matched only by
// digest, for steps no event of the conversion stands for.
func Check(steps []review.Step, events []transcript.Event, raw ...[]byte) (*Report, error) {
	ix, err := build(events)
	if err != nil {
		return nil, err
	}
	for _, b := range raw {
		if v, err := strictjson.Shallow(b, strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth}, nil); err == nil {
			sum, _ := digest.Body(v, b)
			if _, ok := ix.all[sum]; !ok {
				ix.all[sum] = b
			}
		}
	}
	r := &Report{Summary: map[string]int{}, NotRecorded: []string{}}
	calls := map[string]int{} // toolUseId -> index in r.Items
	seen := map[string]bool{}
	ordinal := map[string]int{}
	for i := range steps {
		st := &steps[i]
		if len(st.Inputs) == 0 && len(st.Outputs) == 0 {
			continue
		}
		if st.ToolUseID != "" && isTool(st.Event) {
			seen[st.ToolUseID] = true
			k, ok := calls[st.ToolUseID]
			if !ok {
				r.Items = append(r.Items, Item{What: "call", ToolUseID: st.ToolUseID, Tool: st.Tool})
				k = len(r.Items) - 1
				calls[st.ToolUseID] = k
			}
			it := &r.Items[k]
			s := ix.tool[st.Event+"\x00"+st.ToolUseID]
			if s == nil && st.Event != "PreToolUse" {
				// A call may fail in one view and not the other.
				for _, alt := range []string{"PostToolUse", "PostToolUseFailure"} {
					if s == nil {
						s = ix.tool[alt+"\x00"+st.ToolUseID]
					}
				}
			}
			it.Bodies = append(it.Bodies, compare(st, s)...)
			continue
		}
		// Prompts, final messages and other bodies: the n-th such event
		// of the record against the n-th of the transcript, and any one of
		// them when a re-ordering put it elsewhere.
		what := map[string]string{"UserPromptSubmit": "prompt", "Stop": "final message", "SubagentStop": "sub-agent final message"}[st.Event]
		if what == "" {
			what = st.Event
		}
		list := ix.other[st.Event]
		n := ordinal[st.Event]
		ordinal[st.Event]++
		var s *side
		if n < len(list) {
			s = list[n]
		}
		for _, cand := range list {
			if sameDigests(st, cand) {
				s = cand
				break
			}
		}
		bodies := compare(st, s)
		// An event the transcript has no counterpart for (Claude Code's
		// PostToolBatch, which repeats its calls' bodies) is matched by
		// any body of the transcript with the same digest.
		for k := range bodies {
			if raw, ok := ix.all[bodies[k].Recorded]; ok && bodies[k].Status != Matched {
				bodies[k].Status, bodies[k].Transcript, bodies[k].body = Matched, "", raw
				bodies[k].Note = "found elsewhere in the transcript"
			}
		}
		r.Items = append(r.Items, Item{What: what, Bodies: bodies})
	}
	for i := range r.Items {
		it := &r.Items[i]
		it.Status = Matched
		for _, b := range it.Bodies {
			switch {
			case b.Status == Differs:
				it.Status = Differs
			case b.Status == Absent && it.Status == Matched:
				it.Status = Absent
			}
		}
		r.Summary[it.What+"s "+it.Status]++
	}
	for id := range ix.ids {
		if !seen[id] {
			r.NotRecorded = append(r.NotRecorded, id)
		}
	}
	sort.Strings(r.NotRecorded)
	return r, nil
}

func isTool(ev string) bool {
	return ev == "PreToolUse" || ev == "PostToolUse" || ev == "PostToolUseFailure"
}

func sameDigests(st *review.Step, s *side) bool {
	return s != nil && equal(st.Inputs, s.in) && equal(st.Outputs, s.out)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// compare judges each recorded digest of st against the transcript side s.
func compare(st *review.Step, s *side) []Body {
	var out []Body
	for _, role := range []string{"input", "output"} {
		rec := st.Inputs
		if role == "output" {
			rec = st.Outputs
		}
		for k, d := range rec {
			b := Body{Seq: st.Seq, Event: st.Event, Role: role, Recorded: d, Status: Absent}
			if s != nil {
				got := s.in
				raw := s.inRaw
				if role == "output" {
					got, raw = s.out, s.outRaw
				}
				b.body = raw
				switch {
				case k < len(got) && got[k] == d:
					b.Status = Matched
				case k < len(got) && role == "output" && s.textOnly:
					// The transcript kept only what the model read, not
					// the tool's result the hook was given: it does not
					// hold this body.
					b.Note = "the transcript holds only the text the model saw"
				case k < len(got):
					b.Status, b.Transcript = Differs, got[k]
					if role == "input" && isTool(st.Event) {
						if fields, ok := harnessAdded(s.tool, s.rawIn, d); ok {
							b.Status, b.Note = Matched, "normalized: harness-added fields: "+strings.Join(fields, ", ")
						} else if fields := addable(s.tool, s.rawIn); len(fields) > 0 {
							b.Note = "harness-added fields: " + strings.Join(fields, ", ") + " (did not explain the difference)"
						}
					}
				}
			}
			out = append(out, b)
		}
	}
	return out
}

// Normalizations are the fields Claude Code adds to a tool's input, with
// their values, before its hooks see it, when the model left them out;
// the transcript keeps the model's input. A transcript input that lacks
// them is digested again with them added (in this order, each only when
// absent); a match then is reported as matched, with the fields named.
var Normalizations = map[string][]strictjson.Member{
	"Edit": {{Key: "replace_all", Value: strictjson.Bool(false)}},
}

// addable lists the normalization fields the transcript's input lacks.
func addable(tool string, raw []byte) []string {
	var out []string
	v, err := strictjson.Shallow(raw, strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth, Depth: 1}, nil)
	if err != nil || v.Kind != strictjson.Object {
		return nil
	}
	for _, m := range Normalizations[tool] {
		if v.Get(m.Key) == nil {
			out = append(out, m.Key)
		}
	}
	return out
}

// harnessAdded digests the transcript input with the missing
// normalization fields added and reports whether that gives want.
func harnessAdded(tool string, raw []byte, want string) ([]string, bool) {
	fields := addable(tool, raw)
	if len(fields) == 0 {
		return nil, false
	}
	var b bytes.Buffer
	trimmed := bytes.TrimSpace(raw)
	b.WriteByte('{')
	for i, f := range fields {
		for _, m := range Normalizations[tool] {
			if m.Key == f {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`"` + f + `":` + literal(m.Value))
			}
		}
	}
	inner := bytes.TrimSpace(trimmed[1 : len(trimmed)-1])
	if len(inner) > 0 {
		b.WriteByte(',')
		b.Write(inner)
	}
	b.WriteByte('}')
	v, err := strictjson.Shallow(b.Bytes(), strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth}, nil)
	if err != nil {
		return nil, false
	}
	sum, _ := digest.Body(v, b.Bytes())
	return fields, sum == want
}

func literal(v strictjson.Value) string {
	switch v.Kind {
	case strictjson.True:
		return "true"
	case strictjson.False:
		return "false"
	case strictjson.Null:
		return "null"
	}
	return v.Str
}

// BodyText is the transcript's text of a body, for --show-bodies.
func (b Body) BodyText() []byte { return b.body }
