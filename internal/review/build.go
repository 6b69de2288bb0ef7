package review

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/gaps"
)

// Gap names, as shown inline and in --json.
const (
	GapUnfinished    = "unfinished"     // a pre-event and no post-event
	GapDuplicatePre  = "duplicated pre" // the pre-event came more than once
	GapDuplicatePost = "duplicated post"
	GapOrphaned      = "orphaned: no pre-event" // the post-event's start is missing
	GapMissingStart  = "missing start"          // the session's: no SessionStart
	// NoteBatchOnly marks a call no hook ran for (see Call.Note).
	NoteBatchOnly = "not run: no hook events, named only by PostToolBatch"
	// NoteDenied marks a call the organization policy denied: it has no
	// post-event because it never ran, which is no gap.
	NoteDenied = "not run: denied by the organization policy"
	// NoteDeniedRan marks a call the organization policy denied that has
	// a post-event: it ran anyway (DENIED_CALL_RAN under --policy-key).
	NoteDeniedRan = "RAN although denied by the organization policy"
)

// Call is one tool call: its pre- and post-event joined by toolUseId.
// A review holds one per call (about 37,500 on a 100,000-step record,
// at the peak with the record), so it keeps only what every call has:
// the strings (pointing into the record), the first pre- and post-event
// seqs and their counts, the figures as values, and what only a few
// calls have (more seqs, a gate, files that are not the subject) behind
// one pointer: 176 bytes, not 288 (issue 21, TestCallSize). Its JSON is
// what it was when those were fields (MarshalJSON).
type Call struct {
	ToolUseID string
	Tool      string
	Kind      string
	Subject   string // the command, else the path(s), else a pattern or url
	Agent     string // the sub-agent's id; "" in the main session
	Start     string // the first step's time
	End       string // the post-event's time
	duration  int64  // the harness's figure, else end minus start (hasDuration)
	exitCode  int64  // (hasExit)
	pre, post int64  // the first pre- and post-event's seq (nPre, nPost > 0)
	pos       int64  // seq of its first step, for ordering
	nPre      int32  // how many pre-events
	nPost     int32
	Failed    bool
	denied    bool      // an enforced gate step denied it (package gaps' rule)
	bits      callBits  // which figures it has, its gaps, its note
	more      *callMore // nil for most calls
}

// callMore is what few calls have.
type callMore struct {
	pre, post []int64 // the seqs after the first
	gate      *Step   // the gate step that decided it (its Gate is the call's)
	// paths are its files (streamBuild: of its first pre-event, else of
	// its first post-event) when they are not just its subject.
	paths []string
}

type callBits uint16

const (
	hasDuration callBits = 1 << iota
	hasExit
	pathIsSubject // its one file is its subject (streamBuild)
	gapUnfinished
	gapOrphaned
	gapDupPre
	gapDupPost
	noteBatchOnly
	noteDenied
	noteDeniedRan
)

func (c *Call) extra() *callMore {
	if c.more == nil {
		c.more = &callMore{}
	}
	return c.more
}

// Duration is the harness's figure, else end minus start; nil when
// unfinished.
func (c *Call) Duration() *int64 {
	if c.bits&hasDuration == 0 {
		return nil
	}
	d := c.duration
	return &d
}

// ExitCode is the post-event's exit code, nil when it gave none.
func (c *Call) ExitCode() *int64 {
	if c.bits&hasExit == 0 {
		return nil
	}
	e := c.exitCode
	return &e
}

// Pre is the seqs of the pre-events (never nil).
func (c *Call) Pre() []int64 { return c.seqs(c.nPre, c.pre, 0) }

// Post is the seqs of the post-events (never nil).
func (c *Call) Post() []int64 { return c.seqs(c.nPost, c.post, 1) }

func (c *Call) seqs(n int32, first int64, which int) []int64 {
	out := make([]int64, 0, n)
	if n == 0 {
		return out
	}
	out = append(out, first)
	if c.more != nil {
		out = append(out, [2][]int64{c.more.pre, c.more.post}[which]...)
	}
	return out
}

// Gaps names the call's gaps, in the order shown (never nil).
func (c *Call) Gaps() []string {
	out := []string{}
	for _, g := range [...]struct {
		bit  callBits
		name string
	}{{gapUnfinished, GapUnfinished}, {gapOrphaned, GapOrphaned}, {gapDupPre, GapDuplicatePre}, {gapDupPost, GapDuplicatePost}} {
		if c.bits&g.bit != 0 {
			out = append(out, g.name)
		}
	}
	return out
}

// hasGaps is len(c.Gaps()) > 0 without the slice.
func (c *Call) hasGaps() bool {
	return c.bits&(gapUnfinished|gapOrphaned|gapDupPre|gapDupPost) != 0
}

// Note says why a call has no pre- or post-event at all: a call the
// model made that Claude Code refused before running any hook (an
// unknown tool, a bad input), named only by its PostToolBatch
// (NoteBatchOnly), or one the organization policy denied (NoteDenied);
// or that a denied call has a post-event: it ran (NoteDeniedRan).
func (c *Call) Note() string {
	switch {
	case c.bits&noteBatchOnly != 0:
		return NoteBatchOnly
	case c.bits&noteDenied != 0:
		return NoteDenied
	case c.bits&noteDeniedRan != 0:
		return NoteDeniedRan
	}
	return ""
}

// Gate is the organization policy's decision on the call, when a gate
// step names it.
func (c *Call) Gate() *Gate {
	if st := c.GateStep(); st != nil {
		return st.Gate
	}
	return nil
}

// GateStep is the gate step itself (for OTLP logs, which send every step
// that is not a call's).
func (c *Call) GateStep() *Step {
	if c.more == nil {
		return nil
	}
	return c.more.gate
}

func (c *Call) setGate(st *Step) { c.extra().gate = st }

// MarshalJSON writes the call as it was written when its seqs, gaps,
// note and gate were fields (HTML characters are left as they are; an
// encoder that escapes them escapes these too).
func (c *Call) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		ToolUseID string   `json:"toolUseId,omitempty"`
		Tool      string   `json:"tool,omitempty"`
		Kind      string   `json:"kind"`
		Subject   string   `json:"subject,omitempty"`
		Agent     string   `json:"agent,omitempty"`
		Start     string   `json:"start"`
		End       string   `json:"end,omitempty"`
		Duration  *int64   `json:"durationMs"`
		ExitCode  *int64   `json:"exitCode"`
		Failed    bool     `json:"failed"`
		Pre       []int64  `json:"preSeqs"`
		Post      []int64  `json:"postSeqs"`
		Gaps      []string `json:"gaps"`
		Note      string   `json:"note,omitempty"`
		Gate      *Gate    `json:"gate,omitempty"`
	}{c.ToolUseID, c.Tool, c.Kind, c.Subject, c.Agent, c.Start, c.End, c.Duration(), c.ExitCode(), c.Failed,
		c.Pre(), c.Post(), c.Gaps(), c.Note(), c.Gate()})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Event is a step that is not part of a tool call: a stop, a compaction,
// a notification, a permission gate, a note. It holds only what such a
// step has (its seq, time, kind, summary, event and digests, and its ids
// behind a pointer when it names any: 136 bytes, not a whole Step's 376;
// a review of a 100,000-step record holds 25,000); a step with more (a
// tool, a path, a gate decision, a batch's ids) keeps its whole Step
// too. Its JSON is the whole Step's with "agent" after it, as when it
// embedded the Step (Full).
type Event struct {
	Seq               int64
	At, Kind, Summary string
	Event             string
	Agent             string // the sub-agent it belongs to; "" in the main session
	// digests are its inputs' then its outputs' (nIn of them inputs);
	// digestBits says which of the step's lists were null.
	digests    []string
	nIn        int32
	digestBits uint8
	ids        *eventIDs // nil when it names no agent and no turn
	rich       *Step     // the whole step, when it has fields beyond these
}

type eventIDs struct{ agentID, agentType, turnID string }

const (
	inputsNull uint8 = 1 << iota
	outputsNull
)

// eventOf is the Event row of st (whose strings it keeps).
func eventOf(st *Step, agent string) Event {
	e := Event{Seq: st.Seq, At: st.At, Kind: st.Kind, Summary: st.Summary, Event: st.Event, Agent: agent, nIn: int32(len(st.Inputs))}
	switch {
	case len(st.Outputs) == 0:
		e.digests = st.Inputs
	case len(st.Inputs) == 0:
		e.digests = st.Outputs
	default:
		e.digests = append(append(make([]string, 0, len(st.Inputs)+len(st.Outputs)), st.Inputs...), st.Outputs...)
	}
	if st.Inputs == nil {
		e.digestBits |= inputsNull
	}
	if st.Outputs == nil {
		e.digestBits |= outputsNull
	}
	if st.AgentID != "" || st.AgentType != "" || st.TurnID != "" {
		e.ids = &eventIDs{st.AgentID, st.AgentType, st.TurnID}
	}
	if st.Tool != "" || st.ToolUseID != "" || st.Command != "" || st.Path != "" || st.Paths != nil || st.Detail != "" ||
		st.ExitCode != nil || st.Duration != nil || st.BatchIDs != nil || st.BatchTools != nil || st.Gate != nil {
		r := *st
		e.rich = &r
	}
	return e
}

// Inputs are the step's inputsSha256 (nil when it had none).
func (e *Event) Inputs() []string {
	if e.digestBits&inputsNull != 0 {
		return nil
	}
	if e.nIn == 0 {
		return []string{}
	}
	return e.digests[:e.nIn:e.nIn]
}

// Outputs are the step's outputsSha256 (nil when it had none).
func (e *Event) Outputs() []string {
	if e.digestBits&outputsNull != 0 {
		return nil
	}
	if len(e.digests) == int(e.nIn) {
		return []string{}
	}
	return e.digests[e.nIn:]
}

// AgentID, AgentType and TurnID are the step's data.agentId,
// data.agentType and data.turnId.
func (e *Event) AgentID() string {
	if e.ids == nil {
		return ""
	}
	return e.ids.agentID
}

func (e *Event) AgentType() string {
	if e.ids == nil {
		return ""
	}
	return e.ids.agentType
}

func (e *Event) TurnID() string {
	if e.ids == nil {
		return ""
	}
	return e.ids.turnID
}

// Full is the event's whole Step.
func (e *Event) Full() Step {
	if e.rich != nil {
		return *e.rich
	}
	return Step{Seq: e.Seq, At: e.At, Kind: e.Kind, Summary: e.Summary, Event: e.Event,
		AgentID: e.AgentID(), AgentType: e.AgentType(), TurnID: e.TurnID(), Inputs: e.Inputs(), Outputs: e.Outputs()}
}

// step is the event's whole Step when it has more than an Event holds
// (a gate, a batch, a call's fields), else nil.
func (e *Event) step() *Step { return e.rich }

// MarshalJSON writes the event as it was written when it embedded its
// Step: the Step's members, then "agent" (HTML characters are left as
// they are; an encoder that escapes them escapes these too).
func (e *Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Step
		Agent string `json:"agent,omitempty"`
	}{e.Full(), e.Agent})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// Item is one line of a turn: a call, an event, or a sub-agent with its
// own items.
type Item struct {
	Call     *Call     `json:"call,omitempty"`
	Event    *Event    `json:"event,omitempty"`
	SubAgent *SubAgent `json:"subagent,omitempty"`
	pos      int64
}

// SubAgent groups the steps of one sub-agent.
type SubAgent struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
	Items []Item `json:"items"`
	Calls int    `json:"calls"`
	// Marks are its SubagentStart and SubagentStop steps, which open and
	// close the group and are no items of their own (for OTLP logs).
	Marks  []Step `json:"-"`
	closed bool
}

// Turn is a prompt and what followed it, up to the next prompt.
type Turn struct {
	// Number is the turn's place in the session (1 for the first
	// prompt; 0 before it). A filtered view keeps it.
	Number int `json:"number"`
	// Prompt is nil for the steps before the first prompt. An Event,
	// not a whole Step (its JSON is the Step's: a turn's prompt is the
	// main session's, with no agent): a review holds one per turn, 192
	// bytes and not 376 beside the kept event (issue 21).
	Prompt *Event `json:"prompt"`
	Items  []Item `json:"items"`
}

// Summary is the review's header after the verdict.
type Summary struct {
	Steps     int            `json:"steps"`
	Calls     int            `json:"calls"`
	ByKind    map[string]int `json:"callsByKind"`
	Files     []File         `json:"filesTouched"`
	Failed    []*Call        `json:"failedCalls"`
	Start     string         `json:"start,omitempty"`
	End       string         `json:"end,omitempty"`
	TotalMs   int64          `json:"totalMs"`   // from the first step to the last
	ToolMs    int64          `json:"toolMs"`    // the calls' durations, summed
	Turns     int            `json:"turns"`     // prompts
	SubAgents int            `json:"subagents"` //
	Gaps      gaps.Counts    `json:"gaps"`
	// Attested and Asserted are the distinct actors of the steps (a
	// fleet's server writes them, docs/fleet.md), in order of first
	// appearance: who the server checked, and who the client said it was.
	Attested []string `json:"attested,omitempty"`
	Asserted []string `json:"asserted,omitempty"`
}

// actorSet gathers the distinct actors of the steps for a Summary. It
// compares identities, and names (AttestedName) only one it has not met:
// a fleet's session names one actor in every step, and a name made per
// step cost the review an allocation per step.
type actorSet struct {
	seen               []fleet.Identity
	attested, asserted []string
}

// add notes a step's actor.
func (s *actorSet) add(a *fleet.Actor) {
	if a == nil {
		return
	}
	if id := a.Attested; id != nil && !slices.Contains(s.seen, *id) {
		s.seen = append(s.seen, *id)
		if w := AttestedName(id); !slices.Contains(s.attested, w) {
			s.attested = append(s.attested, w)
		}
	}
	if id := a.Asserted; id != nil && id.User != "" && !slices.Contains(s.asserted, id.User) {
		s.asserted = append(s.asserted, id.User)
	}
}

// to sets the summary's Attested and Asserted.
func (s *actorSet) to(sum *Summary) { sum.Attested, sum.Asserted = s.attested, s.asserted }

// AttestedName is how a review names an attested identity: "dev1 in
// acme (credential 3f2a…)", "ci in acme (oidc https://issuer)", "the
// server's token".
func AttestedName(id *fleet.Identity) string {
	if id.By == fleet.ByToken {
		return "the server's shared token"
	}
	how := id.By
	switch {
	case id.Credential != "":
		how += " " + id.Credential
	case id.Issuer != "":
		how += " " + id.Issuer
	}
	return id.Subject + " in " + id.Tenant + " (" + how + ")"
}

// File is a path the calls touched, with how often per kind.
type File struct {
	Path   string         `json:"path"`
	ByKind map[string]int `json:"byKind"`
}

// Review is everything the command prints.
type Review struct {
	Verdict Verdict  `json:"verdict"`
	Notes   []string `json:"notes,omitempty"` // said right after the verdict
	Session Session  `json:"session"`
	Summary Summary  `json:"summary"`
	Turns   []Turn   `json:"turns"`
}

// Verdict is the verification result, shown first. For a sealed record it
// is the verifier's (with the policy checks); for an in-progress file it
// says how far the chain holds.
type Verdict struct {
	OK        bool   `json:"ok"`
	State     string `json:"state"` // "sealed" or "in progress"
	Code      string `json:"code,omitempty"`
	Detail    string `json:"detail"`
	RecordID  string `json:"recordId,omitempty"`
	KeyID     string `json:"keyId,omitempty"`
	Pinned    bool   `json:"pinned"`
	Assurance string `json:"assurance,omitempty"` // the checkpoint level (docs/checkpoint.md) when the verifier gives one; see SetAssurance
	Line      string `json:"line"`                // the one line logbook-verify prints
}

// Build joins the steps into calls, turns and sub-agents. Steps are taken
// in seq order; a post-event that lands before its pre-event (parallel
// hooks) still joins it.
func Build(steps []Step) (turns []Turn, sum Summary) { return build(steps, nil) }

// build is Build; counted, when not nil, is the gap count the verifier
// already made of these steps (record.Result.Gaps), not counted again.
func build(steps []Step, counted *gaps.Counts) (turns []Turn, sum Summary) {
	var actors actorSet
	var tr gaps.Tracker
	calls := make(map[string]*Call, len(steps)/2)
	waiting := map[string][]*Call{} // id-less pre-events waiting for their post-event, by tool
	var order []*Call
	for i := range steps {
		st := &steps[i]
		actors.add(st.Actor)
		if counted == nil {
			tr.Observe(st.Event, st.ToolUseID)
			if g := st.Gate; g != nil {
				tr.ObserveGate(g.gated, st.ToolUseID, g.Decision, g.Enforced)
			}
		}
		ph := gaps.PhaseOf(st.Event)
		if ph != gaps.Pre && ph != gaps.Post {
			continue
		}
		var c *Call
		if st.ToolUseID != "" {
			c = calls[st.ToolUseID]
		} else if ph == gaps.Post && len(waiting[st.Tool]) > 0 {
			// No id (Gemini CLI, Copilot CLI): a post-event joins the
			// oldest open pre-event of the same tool.
			c, waiting[st.Tool] = waiting[st.Tool][0], waiting[st.Tool][1:]
		}
		if c == nil {
			c = &Call{ToolUseID: st.ToolUseID, pos: st.Seq, Start: st.At}
			if st.ToolUseID != "" {
				calls[st.ToolUseID] = c
			} else if ph == gaps.Pre {
				waiting[st.Tool] = append(waiting[st.Tool], c)
			}
			order = append(order, c)
		}
		c.fill(st, ph)
	}
	gated := joinGates(steps, calls)
	for _, c := range order {
		c.finish()
	}
	for i := range steps {
		order = batchOnly(&steps[i], calls, order)
	}

	// Sub-agents (grouper).
	grp := newGrouper(len(steps), func(i int) (bool, string) { return steps[i].AgentID != "", steps[i].Event })
	agentOf := grp.agentOf
	for i := range steps {
		st := &steps[i]
		grp.see(st.Seq, st.Event, st.AgentID, func() (string, string) { return st.AgentType, st.At })
	}

	// Turns: a prompt opens one; every call and event goes to the turn of
	// its first step.
	turnAt := make([]int, len(steps)) // index of the turn for step i
	turns = []Turn{{Items: []Item{}}}
	byTurnID := map[string]int{} // a prompt's turn id (Claude Code's prompt_id) -> its turn
	for i := range steps {
		if steps[i].Event == "UserPromptSubmit" && agentOf[steps[i].Seq] == "" {
			p := eventOf(&steps[i], "")
			turns = append(turns, Turn{Number: len(turns), Prompt: &p, Items: []Item{}})
			if p.TurnID() != "" {
				byTurnID[p.TurnID()] = len(turns) - 1
			}
		}
		turnAt[i] = len(turns) - 1
	}
	// A step that names its prompt's turn goes there, even when parallel
	// hooks appended it after the next prompt.
	for i := range steps {
		if t, ok := byTurnID[steps[i].TurnID]; ok && steps[i].TurnID != "" {
			turnAt[i] = t
		}
	}
	// index of a step by its seq: the seq itself in a record (seq i is
	// at i, spec §7), a map otherwise.
	inOrder := true
	for i := range steps {
		if steps[i].Seq != int64(i) {
			inOrder = false
			break
		}
	}
	var bySeqMap map[int64]int
	if !inOrder {
		bySeqMap = make(map[int64]int, len(steps))
		for i := range steps {
			bySeqMap[steps[i].Seq] = i
		}
	}
	bySeq := func(seq int64) int {
		if inOrder {
			return int(seq)
		}
		return bySeqMap[seq]
	}
	pl := placer{turns: turns, agents: grp.agents, placed: map[string]bool{}}
	type placed struct {
		pos int64
		it  Item
	}
	var all []placed
	for _, c := range order {
		c.Agent = agentOf[c.pos]
		all = append(all, placed{c.pos, Item{Call: c, pos: c.pos}})
	}
	for i := range steps {
		st := &steps[i]
		ph := gaps.PhaseOf(st.Event)
		if ph == gaps.Pre || ph == gaps.Post || (st.Event == "UserPromptSubmit" && agentOf[st.Seq] == "") || gated[st.Seq] {
			continue
		}
		ev := eventOf(st, agentOf[st.Seq])
		all = append(all, placed{st.Seq, Item{Event: &ev, pos: st.Seq}})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].pos < all[b].pos })
	for _, p := range all {
		pl.place(turnAt[bySeq(p.pos)], agentOf[p.pos], p.it)
	}

	g := tr.Counts()
	if counted != nil {
		g = *counted
	}
	var start, end string
	for i := range steps {
		if i == 0 || steps[i].At < start {
			start = steps[i].At
		}
		if i == 0 || steps[i].At > end {
			end = steps[i].At
		}
	}
	sum = summarize(len(steps), start, end, order, g, func(c *Call) []string { return callPaths(c, steps) })
	actors.to(&sum)
	return doneTurns(turns, len(grp.agents), &sum), sum
}

func (c *Call) fill(st *Step, ph gaps.Phase) {
	if c.Tool == "" {
		c.Tool = st.Tool
	}
	if c.Kind == "" || c.Kind == "note" {
		c.Kind = st.Kind
	}
	if c.Subject == "" {
		c.Subject = subject(st)
	}
	if ph == gaps.Pre {
		if c.nPre == 0 {
			c.pre = st.Seq
		} else {
			c.extra().pre = append(c.extra().pre, st.Seq)
		}
		c.nPre++
		if st.At < c.Start {
			c.Start = st.At
		}
		return
	}
	if c.nPost == 0 {
		c.post = st.Seq
	} else {
		c.extra().post = append(c.extra().post, st.Seq)
	}
	c.nPost++
	if c.nPost == 1 {
		c.End = st.At
		c.bits &^= hasDuration | hasExit
		if st.Duration != nil {
			c.duration, c.bits = *st.Duration, c.bits|hasDuration
		}
		if st.ExitCode != nil {
			c.exitCode, c.bits = *st.ExitCode, c.bits|hasExit
		}
		c.Failed = st.Event == "PostToolUseFailure" || (st.ExitCode != nil && *st.ExitCode != 0)
	}
}

func (c *Call) finish() {
	if c.ToolUseID == "" {
		// Without an id nothing says which events belong together: no
		// gap is claimed (package gaps counts none either).
		c.measure()
		return
	}
	switch {
	case c.nPost == 0 && c.denied:
		if c.bits&(noteBatchOnly|noteDenied) == 0 {
			c.bits |= noteDenied
		}
	case c.nPost == 0:
		c.bits |= gapUnfinished
	case c.nPre == 0:
		c.bits |= gapOrphaned
	}
	if c.nPost > 0 && c.denied {
		c.bits |= noteDeniedRan
	}
	if c.nPre > 1 {
		c.bits |= gapDupPre
	}
	if c.nPost > 1 {
		c.bits |= gapDupPost
	}
	c.measure()
}

// measure gives a call whose post-event had no duration end minus start.
func (c *Call) measure() {
	if c.bits&hasDuration == 0 && c.nPre > 0 && c.End != "" {
		if d, ok := between(c.Start, c.End); ok {
			c.duration, c.bits = d, c.bits|hasDuration
		}
	}
}

// subject is what a call acted on: the command line, else the path(s),
// else a pattern, url or sub-agent type.
func subject(st *Step) string {
	switch {
	case st.Command != "":
		return st.Command
	case len(st.Paths) > 1:
		return strings.Join(st.Paths, ", ")
	case st.Path != "":
		return st.Path
	}
	return st.Detail
}

func between(a, b string) (int64, bool) {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return tb.Sub(ta).Milliseconds(), true
}

// callPaths lists the files a call names (data.paths, else data.path).
func callPaths(c *Call, steps []Step) []string {
	seq := c.pos
	switch {
	case c.nPre > 0:
		seq = c.pre
	case c.nPost > 0:
		seq = c.post
	}
	// steps are in seq order in any record that verifies; fall back to a scan.
	var st *Step
	if seq >= 0 && seq < int64(len(steps)) && steps[seq].Seq == seq {
		st = &steps[seq]
	} else {
		for i := range steps {
			if steps[i].Seq == seq {
				st = &steps[i]
				break
			}
		}
	}
	if st == nil {
		return nil
	}
	return stepPaths(st)
}

// joinGates puts each gate step's decision on its call's row (the first
// gate of a toolUseId) and returns the seqs of the gate steps so shown,
// which are then not rows of their own.
func joinGates(steps []Step, calls map[string]*Call) map[int64]bool {
	gated := map[int64]bool{}
	for i := range steps {
		if joinGate(calls, &steps[i], false) {
			gated[steps[i].Seq] = true
		}
	}
	return gated
}
