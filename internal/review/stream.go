package review

import (
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// streamBuild is build for steps handed over one at a time, in seq order
// (a record's, as the verifier reads it), without holding them: a tool
// call's pre- and post-events are folded into its Call as they come and
// only a few fields of each are kept (lite), while the steps that become
// rows of their own (prompts, events, gates, batches; a few in a
// session) are kept whole. A 100,000-step record is then about the file
// plus its calls in memory, not the file plus every step (issue 21: the
// review's peak was 6.5× the file). It gives what build gives for the
// same steps (TestStreamBuildMatchesBuild); steps whose seq is not their
// place (a record refused STEP_OUT_OF_ORDER) are reported by ok() and
// reviewed by build instead.
type streamBuild struct {
	n       int
	inOrder bool
	calls   map[string]*Call
	waiting map[string][]*Call // id-less pre-events waiting for their post-event, by tool
	order   []*Call
	lite    [][]lite // one per step, in chunks of liteChunk (no copying as it grows)
	// ids are the agent and turn ids the steps name, each once (lite
	// holds their index; 0 is ""), and idx their index by id.
	ids    []string
	idx    map[string]int32
	lastID [2]int32 // the previous step's agent and turn id: most steps repeat them
	// kept are the steps that are not only a call's pre- or post-event,
	// each already the Event row it may become (a prompt's Step is the
	// turn's prompt).
	kept []*Event
	// callRows and eventRows are the chunks the next Call and kept
	// Event are taken from (newCall, newEvent).
	callRows  []Call
	eventRows []Event
	// named is, for each sub-agent id a call's event names, the first
	// such event's agentType and time: the sub-agent's group is opened
	// there when no SubagentStart came before it.
	last       *Call // the call made last with a toolUseId (which is b.calls[its id])
	named      map[string]agentSeen
	start, end string    // the earliest and latest step time
	one        [1]string // room for a call's one file (paths)
	actors     actorSet  // who sent the steps (Summary.Attested, Asserted)
}

// lite is what the passes after the calls read of every step; the rest
// of a call's event is its Call's, or is kept whole. It holds no pointer
// (12 bytes a step, nothing for the collector to scan): the ids are
// indexes into streamBuild.ids.
type lite struct {
	agent, turn int32
	kept        int32 // index in kept, or -1
}

// intern is the index of id in b.ids (which it adds when new); which is
// 0 for the agent id, 1 for the turn id.
func (b *streamBuild) intern(id string, which int) int32 {
	if id == "" {
		return 0
	}
	if k := b.lastID[which]; b.ids[k] == id {
		return k
	}
	k, ok := b.idx[id]
	if !ok {
		k = int32(len(b.ids))
		b.ids = append(b.ids, id)
		b.idx[id] = k
	}
	b.lastID[which] = k
	return k
}

type agentSeen struct{ typ, at string }

const liteChunk = 8192

func (b *streamBuild) liteAt(i int) *lite { return &b.lite[i/liteChunk][i%liteChunk] }

// rowChunk is how many calls, or kept steps, are made at once: rows are
// elements of arrays, not objects of their own (no size class rounding
// up, one allocation per chunk), and never move.
const rowChunk = 1024

func (b *streamBuild) newCall() *Call   { return newRow(&b.callRows) }
func (b *streamBuild) newEvent() *Event { return newRow(&b.eventRows) }

// newRow is the next row of *rows, a new chunk when it is full.
func newRow[T any](rows *[]T) *T {
	if len(*rows) == cap(*rows) {
		*rows = make([]T, 0, rowChunk)
	}
	*rows = (*rows)[:len(*rows)+1]
	return &(*rows)[len(*rows)-1]
}

// newStreamBuild makes a streamBuild whose calls map has room for
// calls calls (a guess: growing the map as they come is a tenth of the
// review's own time on a 100,000-step record).
func newStreamBuild(calls int) *streamBuild {
	return &streamBuild{inOrder: true, calls: make(map[string]*Call, calls), waiting: map[string][]*Call{}, named: map[string]agentSeen{},
		ids: []string{""}, idx: map[string]int32{}}
}

// ok reports whether every step's seq was its place: streamBuild's
// result is build's only then.
func (b *streamBuild) ok() bool { return b.inOrder }

// add takes the next step, read from v; its strings may point into the
// record's bytes (they are kept as they are), its memory is reused after.
func (b *streamBuild) add(v *strictjson.Value) {
	i := b.n
	b.n++
	st := reader{share: true, noDigests: true}.step(v)
	if st.Seq != int64(i) {
		b.inOrder = false
	}
	b.actors.add(st.Actor)
	ph := gaps.PhaseOf(st.Event)
	call := ph == gaps.Pre || ph == gaps.Post
	if i == 0 || st.At < b.start {
		b.start = st.At
	}
	if i == 0 || st.At > b.end {
		b.end = st.At
	}
	l := lite{agent: b.intern(st.AgentID, 0), turn: b.intern(st.TurnID, 1), kept: -1}
	if !call || len(st.BatchIDs) > 0 || st.Gate != nil {
		if call {
			st = reader{share: true}.step(v)
		} else {
			st.Inputs, st.Outputs = reader{share: true}.strs(v.Get("inputsSha256")), reader{share: true}.strs(v.Get("outputsSha256"))
		}
		l.kept = int32(len(b.kept))
		ev := b.newEvent()
		*ev = eventOf(&st, "")
		b.kept = append(b.kept, ev)
	}
	if i%liteChunk == 0 {
		b.lite = append(b.lite, make([]lite, 0, liteChunk))
	}
	last := &b.lite[len(b.lite)-1]
	*last = append(*last, l)
	if !call {
		return
	}
	if _, ok := b.named[st.AgentID]; !ok && st.AgentID != "" && l.kept < 0 {
		b.named[st.AgentID] = agentSeen{st.AgentType, st.At}
	}
	var c *Call
	switch {
	case st.ToolUseID != "" && b.last != nil && b.last.ToolUseID == st.ToolUseID:
		c = b.last // a post-event right after its pre-event: the map has it under its id
	case st.ToolUseID != "":
		c = b.calls[st.ToolUseID]
	case ph == gaps.Post && len(b.waiting[st.Tool]) > 0:
		c, b.waiting[st.Tool] = b.waiting[st.Tool][0], b.waiting[st.Tool][1:]
	}
	if c == nil {
		c = b.newCall()
		*c = Call{ToolUseID: st.ToolUseID, pos: st.Seq, Start: st.At}
		if st.ToolUseID != "" {
			b.calls[st.ToolUseID] = c
			b.last = c
		} else if ph == gaps.Pre {
			b.waiting[st.Tool] = append(b.waiting[st.Tool], c)
		}
		b.order = append(b.order, c)
	}
	// callPaths reads the first pre-event's files, else the first
	// post-event's: so a first pre-event's replace a post-event's.
	files := (ph == gaps.Pre && c.nPre == 0) || (ph == gaps.Post && c.nPre == 0 && c.nPost == 0)
	c.fill(&st, ph)
	if files {
		c.setPaths(&st)
	}
}

// setPaths keeps st's files as the call's (after fill: its subject is
// set): most calls name one file, their subject, and keep no more than
// a bit saying so.
func (c *Call) setPaths(st *Step) {
	c.bits &^= pathIsSubject
	if c.more != nil {
		c.more.paths = nil
	}
	switch {
	case len(st.Paths) == 1 && st.Paths[0] == c.Subject, len(st.Paths) == 0 && st.Path != "" && st.Path == c.Subject:
		c.bits |= pathIsSubject
	case len(st.Paths) > 0:
		c.extra().paths = st.Paths
	case st.Path != "":
		c.extra().paths = []string{st.Path}
	}
}

// finish is the rest of build, over the lite steps and the kept ones;
// counted is the verifier's gap count of the same steps.
func (b *streamBuild) finish(counted gaps.Counts) (turns []Turn, sum Summary) {
	calls, order := b.calls, b.order
	kept := b.kept
	n := b.n
	// joinGates, over the kept steps (every gate step is kept), before
	// the calls are finished: a denied call is no unfinished one.
	gated := map[int64]bool{}
	for _, ev := range kept {
		if st := ev.step(); st != nil && joinGate(calls, st, true) { // a kept step: kept as it is
			gated[st.Seq] = true
		}
	}
	for _, c := range order {
		c.finish()
	}
	nAdd := len(order) // the calls of add; those only a batch names follow
	// Calls that only a PostToolBatch names (every step with BatchIDs is kept).
	for _, ev := range kept {
		if st := ev.step(); st != nil {
			order = batchOnly(st, calls, order)
		}
	}

	b.calls, calls = nil, nil // not read again: garbage as the rows are placed

	// Sub-agents, as build places them.
	// The event of a step that is not kept is a call's: never a
	// SubagentStart, SubagentStop or UserPromptSubmit.
	event := func(i int) string {
		if k := b.liteAt(i).kept; k >= 0 {
			return kept[k].Event
		}
		return ""
	}
	grp := newGrouper(n, func(i int) (bool, string) { return b.liteAt(i).agent != 0, event(i) })
	agentOf := grp.agentOf
	for i := 0; i < n; i++ {
		l := b.liteAt(i)
		id := b.ids[l.agent]
		grp.see(int64(i), event(i), id, func() (string, string) {
			// A step that opens or closes a group is kept (a
			// SubagentStart or SubagentStop), or is the call's event
			// that first named the agent.
			if l.kept >= 0 {
				return kept[l.kept].AgentType(), kept[l.kept].At
			}
			return b.named[id].typ, b.named[id].at
		})
	}

	// Turns.
	turnAt := make([]int32, n)
	turns = []Turn{{Items: []Item{}}}
	byTurn := make([]int32, len(b.ids)) // a prompt's turn id (by its index in ids) -> its turn
	for k := range byTurn {
		byTurn[k] = -1
	}
	for i := 0; i < n; i++ {
		if event(i) == "UserPromptSubmit" && agentOf[int64(i)] == "" {
			l := b.liteAt(i)
			p := kept[l.kept] // a prompt is no call's event: kept; its Agent is ""
			turns = append(turns, Turn{Number: len(turns), Prompt: p, Items: []Item{}})
			if l.turn != 0 {
				byTurn[l.turn] = int32(len(turns) - 1)
			}
		}
		turnAt[i] = int32(len(turns) - 1)
	}
	for i := 0; i < n; i++ {
		if id := b.liteAt(i).turn; id != 0 && byTurn[id] >= 0 {
			turnAt[i] = byTurn[id]
		}
	}
	pl := placer{turns: turns, agents: grp.agents, placed: map[string]bool{}}
	// Calls and events in seq order, as build's stable sort of them
	// puts them, merged rather than gathered and sorted: the calls of
	// add (by their first step), then those only a batch names (by the
	// batch step), then the events, each in order already; at one seq a
	// call of add comes first, then a batch's, then the event.
	for _, c := range order {
		c.Agent = agentOf[c.pos]
	}
	byAdd, byBatch := order[:nAdd], order[nAdd:]
	nextEvent := func(k int) int { // the index in kept of the next event row from k on
		for ; k < len(kept); k++ {
			st := kept[k]
			ph := gaps.PhaseOf(st.Event)
			if ph == gaps.Pre || ph == gaps.Post || (st.Event == "UserPromptSubmit" && agentOf[st.Seq] == "") || gated[st.Seq] {
				continue
			}
			return k
		}
		return k
	}
	for ia, ib, ie := 0, 0, nextEvent(0); ia < len(byAdd) || ib < len(byBatch) || ie < len(kept); {
		var it Item
		switch {
		case ia < len(byAdd) && (ib >= len(byBatch) || byAdd[ia].pos <= byBatch[ib].pos) && (ie >= len(kept) || byAdd[ia].pos <= kept[ie].Seq):
			it = Item{Call: byAdd[ia], pos: byAdd[ia].pos}
			ia++
		case ib < len(byBatch) && (ie >= len(kept) || byBatch[ib].pos <= kept[ie].Seq):
			it = Item{Call: byBatch[ib], pos: byBatch[ib].pos}
			ib++
		default:
			ev := kept[ie]
			ev.Agent = agentOf[ev.Seq]
			it = Item{Event: ev, pos: ev.Seq}
			ie = nextEvent(ie + 1)
		}
		pl.place(int(turnAt[it.pos]), agentOf[it.pos], it)
	}

	sum = summarize(b.n, b.start, b.end, order, counted, b.paths)
	b.actors.to(&sum)
	return doneTurns(turns, len(grp.agents), &sum), sum
}

// paths is callPaths for summarize, into b.one.
func (b *streamBuild) paths(c *Call) []string { return b.callPaths(c, &b.one) }

// callPaths is callPaths: the files of the call's first pre-event, else
// of its first post-event, else of the step at its position.
// one is room for a call's one file.
func (b *streamBuild) callPaths(c *Call, one *[1]string) []string {
	if c.nPre > 0 || c.nPost > 0 {
		if c.bits&pathIsSubject != 0 {
			one[0] = c.Subject
			return one[:]
		}
		if c.more != nil {
			return c.more.paths
		}
		return nil
	}
	if c.pos < 0 || c.pos >= int64(b.n) || b.liteAt(int(c.pos)).kept < 0 {
		return nil
	}
	st := b.kept[b.liteAt(int(c.pos)).kept].step()
	if st == nil {
		return nil // no path: the step is no richer than an Event
	}
	return stepPaths(st)
}
