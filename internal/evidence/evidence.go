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
	"fmt"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/format"
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
	// Moved: the bodies match, but the transcript has them in another
	// order than the record (a line moved, or a call put in another turn).
	Moved = "moved"
	// NotHeld: the transcript holds the call but keeps this body only in
	// another form (a sub-agent's transcript keeps the text the model read,
	// not the tool's result): nothing to compare, and nothing failed.
	NotHeld = "not held"
)

// Body is one recorded digest and what the transcript says of it.
type Body struct {
	Seq        int64  `json:"seq"`
	Event      string `json:"event"`
	Role       string `json:"role"`            // "input" or "output"
	Place      string `json:"place,omitempty"` // where the transcript holds it, when not the usual place
	Status     string `json:"status"`
	Recorded   string `json:"recorded"`
	Transcript string `json:"transcript,omitempty"` // the transcript body's digest, when it differs
	Note       string `json:"note,omitempty"`       // e.g. "harness-added fields: replace_all"
	body       []byte // the transcript's body text, for --show-bodies
}

// Places of a body other than the hook event's own.
const (
	PlaceRead  = "what the model read"     // the tool_result content
	PlaceBatch = "PostToolBatch"           // a batch's copy of a call's input
	PlaceAny   = "elsewhere in transcript" // matched by digest alone
)

// Item is a tool call (by toolUseId), a prompt, or a final message.
type Item struct {
	What      string `json:"what"` // "call", "prompt", "final message", or another event
	ToolUseID string `json:"toolUseId,omitempty"`
	Tool      string `json:"tool,omitempty"`
	Status    string `json:"status"`
	Line      int    `json:"line,omitempty"` // its line in the main transcript, when known
	Note      string `json:"note,omitempty"` // why it is moved
	Bodies    []Body `json:"bodies"`
}

// Seqs lists the record steps an item's bodies come from, in order.
func (it *Item) Seqs() []int64 {
	var out []int64
	for _, b := range it.Bodies {
		if len(out) == 0 || out[len(out)-1] != b.Seq {
			out = append(out, b.Seq)
		}
	}
	return out
}

// Report is the whole check.
type Report struct {
	Items   []Item         `json:"items"`
	Summary map[string]int `json:"summary"` // "calls matched" etc.
	// NotRecorded lists the calls the transcript holds (with hook events)
	// that the record does not name, by toolUseId.
	NotRecorded []string `json:"notRecorded"`
	// NotRecordedPrompts lists the main transcript's lines of prompts no
	// prompt step of the record stands for: prompts inserted.
	NotRecordedPrompts []int `json:"notRecordedPrompts"`
	// Repeated lists the calls, by toolUseId, the transcript gives a
	// second, different input or result the record never saw.
	Repeated []string `json:"repeated"`
	// ReadUnchecked counts calls whose result text the model read has no
	// digest in the record (no PostToolBatch step names them): an edit of
	// that text alone cannot be seen (EVIDENCE_UNHELD unless allowed).
	ReadUnchecked int `json:"readUnchecked"`
}

// OK reports whether nothing differs or moved: every body the transcript
// holds is the recorded one, in the recorded order. Absent bodies are not
// counted here: Failed does, unless they are allowed.
func (r *Report) OK() bool {
	for _, it := range r.Items {
		if it.Status == Differs || it.Status == Moved {
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

// Allow is what the caller accepts short of a whole proof: Absent, bodies
// the record has and the transcript lacks (a transcript cut short, or
// kept in part, on purpose: --allow-absent); Unheld, calls whose result
// the model read the record holds no digest of (--allow-unheld).
type Allow struct{ Absent, Unheld bool }

// Refusal is the verdict: nil when the transcript is evidence of the
// record, else the first failure in the order of format.EvidenceCodes: a
// body differs; the transcript holds a call, a prompt or a second input
// or result the record never saw; a body moved; a recorded body is
// absent; what the model read is not held by the record.
func (r *Report) Refusal(a Allow) *format.RefusalError {
	first := func(status string) (int, string) {
		n, name := 0, ""
		for _, it := range r.Items {
			if it.Status == status {
				if n++; n == 1 {
					name = it.name()
				}
			}
		}
		return n, name
	}
	if n, name := first(Differs); n > 0 {
		return format.Refuse(format.EvidenceDiffers, fmt.Sprintf("%d item(s) differ from the transcript, first %s", n, name))
	}
	var extra []string
	if n := len(r.NotRecorded); n > 0 {
		extra = append(extra, fmt.Sprintf("%d call(s) the record does not name (first %s)", n, review.Clean(r.NotRecorded[0])))
	}
	if n := len(r.NotRecordedPrompts); n > 0 {
		extra = append(extra, fmt.Sprintf("%d prompt(s) the record does not have (first at line %d)", n, r.NotRecordedPrompts[0]))
	}
	if n := len(r.Repeated); n > 0 {
		extra = append(extra, fmt.Sprintf("a second input or result for %d call(s) (first %s)", n, review.Clean(r.Repeated[0])))
	}
	if len(extra) > 0 {
		return format.Refuse(format.EvidenceUnrecorded, "the transcript holds "+strings.Join(extra, ", "))
	}
	if n, name := first(Moved); n > 0 {
		return format.Refuse(format.EvidenceMoved, fmt.Sprintf("%d item(s) in another order than the record's, first %s", n, name))
	}
	if n, name := first(Absent); n > 0 && !a.Absent {
		return format.Refuse(format.EvidenceAbsent, fmt.Sprintf("%d item(s) of the record absent from the transcript, first %s (--allow-absent accepts that)", n, name))
	}
	if r.ReadUnchecked > 0 && !a.Unheld {
		return format.Refuse(format.EvidenceUnheld, fmt.Sprintf("%d call(s) whose result the model read has no digest in the record (no PostToolBatch step names them): an edit of that text cannot be seen (--allow-unheld accepts that)", r.ReadUnchecked))
	}
	return nil
}

// name is how a report line names an item.
func (it *Item) name() string {
	var seqs []string
	for _, s := range it.Seqs() {
		seqs = append(seqs, fmt.Sprint(s))
	}
	name := it.What
	if it.What == "call" {
		name = "call " + review.Clean(it.Tool) + " " + review.Clean(it.ToolUseID)
	}
	return name + " (seq " + strings.Join(seqs, ",") + ")"
}

// digests of one transcript event, as the recorder would take them.
type side struct {
	in, out       []string
	inRaw, outRaw []byte
	tool          string
	rawIn         []byte // the tool input's text, for normalization
	textOnly      bool   // the output is the text the model saw, not the tool's result
	sub           bool   // a sub-agent's event
	line, useLine int    // main transcript lines (0: not known)
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
		s := &side{in: ev.Step.Inputs, out: ev.Step.Outputs, tool: e.ToolName, rawIn: e.ToolInput, textOnly: e.ResponseFromText,
			sub: e.AgentID != "", line: e.Line, useLine: e.UseLine}
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
				if sum, ok := digestOf(c); ok {
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

func digestOf(b []byte) (string, bool) {
	v, err := strictjson.Shallow(b, strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth}, nil)
	if err != nil {
		return "", false
	}
	sum, _ := digest.Body(v, b)
	return sum, true
}

// Check compares the record's steps with the transcript's events; raw
// is what Scan read of the transcript files: the bodies no event of the
// conversion stands for, and each call's input and the result the model
// read, which a PostToolBatch step digests. raw may be nil.
func Check(steps []review.Step, events []transcript.Event, raw *Raw) (*Report, error) {
	ix, err := build(events)
	if err != nil {
		return nil, err
	}
	if raw == nil {
		raw = &Raw{Calls: map[string]*RawCall{}, Repeated: map[string]bool{}}
	}
	for _, b := range raw.Bodies {
		if sum, ok := digestOf(b); ok {
			if _, ok := ix.all[sum]; !ok {
				ix.all[sum] = b
			}
		}
	}
	r := &Report{Summary: map[string]int{}, NotRecorded: []string{}, NotRecordedPrompts: []int{}, Repeated: []string{}}
	used := map[*side]bool{}  // the transcript's prompts and final messages a step stands for
	calls := map[string]int{} // toolUseId -> index in r.Items
	seen := map[string]bool{}
	batched := map[string]bool{} // calls whose read result a batch digests
	ordinal := map[string]int{}
	var turns []turnMark // prompts and final messages, in record order
	callItem := func(id, tool string) *Item {
		k, ok := calls[id]
		if !ok {
			r.Items = append(r.Items, Item{What: "call", ToolUseID: id, Tool: tool})
			k = len(r.Items) - 1
			calls[id] = k
		}
		return &r.Items[k]
	}
	for i := range steps {
		st := &steps[i]
		if len(st.Inputs) == 0 && len(st.Outputs) == 0 {
			continue
		}
		if st.ToolUseID != "" && isTool(st.Event) {
			seen[st.ToolUseID] = true
			it := callItem(st.ToolUseID, st.Tool)
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
		if st.Event == "PostToolBatch" && len(st.BatchIDs) > 0 && len(st.Inputs) <= len(st.BatchIDs) && len(st.Outputs) == len(st.BatchIDs) {
			// Each call of the batch: its input, and the result the
			// model read, against that call's own blocks.
			for k, id := range st.BatchIDs {
				tool := ""
				if k < len(st.BatchTools) {
					tool = st.BatchTools[k]
				}
				seen[id] = true
				batched[id] = true
				it := callItem(id, tool)
				it.Bodies = append(it.Bodies, batchBodies(st, k, ix, raw.Calls[id])...)
			}
			continue
		}
		// Prompts, final messages and other bodies: the n-th such event
		// of the record against the n-th of the transcript, and any one of
		// them when a re-ordering put it elsewhere (the order check below
		// then names it).
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
		if !sameDigests(st, s) || used[s] {
			// Another one with these digests, one no step stood for
			// first: a prompt given twice is two prompts.
			for _, cand := range list {
				if sameDigests(st, cand) && !used[cand] {
					s = cand
					break
				}
			}
		}
		if s != nil {
			used[s] = true
		}
		bodies := compare(st, s)
		// An event the transcript has no counterpart for (Claude Code's
		// PostToolBatch when its calls cannot be told apart) is matched
		// by any body of the transcript with the same digest.
		for k := range bodies {
			if raw, ok := ix.all[bodies[k].Recorded]; ok && bodies[k].Status != Matched {
				bodies[k].Status, bodies[k].Transcript, bodies[k].body = Matched, "", raw
				bodies[k].Place = PlaceAny
			}
		}
		it := Item{What: what, Bodies: bodies}
		if s != nil && !s.sub && s.line > 0 && (what == "prompt" || what == "final message") {
			it.Line = s.line
			turns = append(turns, turnMark{item: len(r.Items), seq: st.Seq, line: s.line, prompt: what == "prompt"})
		}
		r.Items = append(r.Items, it)
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
	}
	order(r, steps, ix, calls, turns)
	for i := range r.Items {
		r.Summary[r.Items[i].What+"s "+r.Items[i].Status]++
	}
	for id := range ix.ids {
		if !seen[id] {
			r.NotRecorded = append(r.NotRecorded, id)
		}
	}
	for _, p := range ix.other["UserPromptSubmit"] {
		if !used[p] {
			r.NotRecordedPrompts = append(r.NotRecordedPrompts, p.line)
		}
	}
	for id := range raw.Repeated {
		r.Repeated = append(r.Repeated, id)
	}
	sort.Strings(r.Repeated)
	for id := range seen {
		if !batched[id] {
			r.ReadUnchecked++
		}
	}
	sort.Strings(r.NotRecorded)
	return r, nil
}

// batchBodies judges the k-th call of a PostToolBatch step: its input
// against the call's tool_use input, its result against the tool_result
// the model read (or the tool's result, should a harness send that).
func batchBodies(st *review.Step, k int, ix *index, c *RawCall) []Body {
	id := st.BatchIDs[k]
	var out []Body
	if k < len(st.Inputs) && len(st.Inputs) == len(st.BatchIDs) {
		b := Body{Seq: st.Seq, Event: st.Event, Role: "input", Place: PlaceBatch, Recorded: st.Inputs[k], Status: Absent}
		if c != nil && c.Input != nil {
			got, _ := digestOf(c.Input)
			b.body = c.Input
			switch {
			case got == b.Recorded:
				b.Status = Matched
			default:
				b.Status, b.Transcript = Differs, got
				tool := ""
				if k < len(st.BatchTools) {
					tool = st.BatchTools[k]
				}
				if fields, ok := harnessAdded(tool, c.Input, b.Recorded); ok {
					b.Status, b.Transcript, b.Note = Matched, "", "normalized: harness-added fields: "+strings.Join(fields, ", ")
				}
			}
		}
		out = append(out, b)
	}
	b := Body{Seq: st.Seq, Event: st.Event, Role: "output", Place: PlaceRead, Recorded: st.Outputs[k], Status: Absent}
	if c != nil && c.Content != nil {
		got, _ := digestOf(c.Content)
		b.body = c.Content
		b.Status = Matched
		if got != b.Recorded {
			b.Status, b.Transcript = Differs, got
			// A harness may hand its batch the tool's result instead.
			for _, ev := range []string{"PostToolUse", "PostToolUseFailure"} {
				if s := ix.tool[ev+"\x00"+id]; s != nil && !s.textOnly && len(s.out) > 0 && s.out[0] == b.Recorded {
					b.Status, b.Transcript, b.Place, b.body = Matched, "", "", s.outRaw
				}
			}
		}
	}
	return append(out, b)
}

type turnMark struct {
	item   int
	seq    int64
	line   int
	prompt bool
}

// order checks that the transcript has the record's bodies in the
// record's order, on the main transcript's lines: prompts and final
// messages in turn; each call in the turn the record puts it in; each
// tool_result after its tool_use; and a call the model asked for after
// reading another's result comes after that result in the record too.
// Sub-agents' events are not checked (their lines are in other files,
// and their calls run beside the main thread's).
func order(r *Report, steps []review.Step, ix *index, calls map[string]int, turns []turnMark) {
	move := func(k int, note string) {
		it := &r.Items[k]
		if it.Status == Matched || it.Status == Moved {
			it.Status = Moved
			if it.Note == "" {
				it.Note = note
			}
		}
	}
	for k := 1; k < len(turns); k++ {
		if turns[k].line <= turns[k-1].line {
			move(turns[k].item, fmt.Sprintf("transcript line %d is not after line %d, which the record has before it (seq %d)", turns[k].line, turns[k-1].line, turns[k-1].seq))
		}
	}
	// The record's calls with their steps and lines.
	type call struct {
		item             int
		pre, post        int64 // seqs, -1 when not recorded
		useLine, resLine int
	}
	var cs []*call
	byID := map[string]*call{}
	for i := range steps {
		st := &steps[i]
		if st.ToolUseID == "" || !isTool(st.Event) || st.AgentID != "" {
			continue
		}
		c := byID[st.ToolUseID]
		if c == nil {
			k, ok := calls[st.ToolUseID]
			if !ok {
				continue
			}
			c = &call{item: k, pre: -1, post: -1}
			byID[st.ToolUseID] = c
			cs = append(cs, c)
		}
		if st.Event == "PreToolUse" {
			c.pre = st.Seq
			if s := ix.tool["PreToolUse\x00"+st.ToolUseID]; s != nil && !s.sub {
				c.useLine = s.line
			}
		} else {
			c.post = st.Seq
			for _, ev := range []string{"PostToolUse", "PostToolUseFailure"} {
				if s := ix.tool[ev+"\x00"+st.ToolUseID]; s != nil && !s.sub {
					c.resLine, c.useLine = s.line, s.useLine
				}
			}
		}
	}
	// A call's turn: the prompts before it, counted among the prompts the
	// record and the transcript share (each record prompt with its
	// transcript line), so a prompt only one side has (inserted, or cut)
	// does not switch the check off.
	var promptLines []int
	var promptSeqs []int64
	for _, tm := range turns {
		if tm.prompt {
			promptLines = append(promptLines, tm.line)
			promptSeqs = append(promptSeqs, tm.seq)
		}
	}
	sort.Ints(promptLines)
	for _, c := range cs {
		if c.useLine > 0 && c.resLine > 0 && c.resLine <= c.useLine {
			move(c.item, fmt.Sprintf("its tool_result (line %d) is not after its tool_use (line %d)", c.resLine, c.useLine))
		}
		if c.useLine > 0 && c.pre >= 0 {
			inRecord := sort.Search(len(promptSeqs), func(i int) bool { return promptSeqs[i] > c.pre })
			inTranscript := sort.SearchInts(promptLines, c.useLine)
			if inRecord != inTranscript {
				move(c.item, fmt.Sprintf("the record has it in turn %d, the transcript (line %d) in turn %d", inRecord, c.useLine, inTranscript))
			}
		}
	}
	// Causal order: B asked for after A's result was read (B's tool_use
	// line after A's tool_result line) must have its pre-event after A's
	// post-event in the record.
	byRes := make([]*call, 0, len(cs))
	for _, c := range cs {
		if c.resLine > 0 && c.post >= 0 {
			byRes = append(byRes, c)
		}
	}
	sort.Slice(byRes, func(i, j int) bool { return byRes[i].resLine < byRes[j].resLine })
	maxPost := make([]int64, len(byRes)) // the latest post seq among byRes[:i+1]
	for i, c := range byRes {
		maxPost[i] = c.post
		if i > 0 && maxPost[i-1] > c.post {
			maxPost[i] = maxPost[i-1]
		}
	}
	for _, c := range cs {
		if c.useLine == 0 || c.pre < 0 {
			continue
		}
		n := sort.Search(len(byRes), func(i int) bool { return byRes[i].resLine >= c.useLine })
		if n > 0 && maxPost[n-1] > c.pre {
			move(c.item, fmt.Sprintf("the transcript asks for it (line %d) after a result the record has after it (seq %d)", c.useLine, maxPost[n-1]))
		}
	}
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
					// hold this body. A sub-agent's transcript is written
					// so; the main one always keeps toolUseResult, and a
					// result without it there is one taken away.
					b.Note = "the transcript holds only the text the model saw"
					if s.sub {
						b.Status = NotHeld
					}
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
