package review

import (
	"sort"

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
	// kept are the steps that are not only a call's pre- or post-event,
	// each already the Event row it may become (a prompt's Step is the
	// turn's prompt).
	kept []*Event
	// named is, for each sub-agent id a call's event names, the first
	// such event's agentType and time: the sub-agent's group is opened
	// there when no SubagentStart came before it.
	named      map[string]agentSeen
	start, end string // the earliest and latest step time
}

// lite is what the passes after the calls read of every step; the rest
// of a call's event is its Call's, or is kept whole.
type lite struct {
	agentID, turnID string
	kept            int32 // index in kept, or -1
}

type agentSeen struct{ typ, at string }

const liteChunk = 8192

func (b *streamBuild) liteAt(i int) *lite { return &b.lite[i/liteChunk][i%liteChunk] }

// callFiles are the files named by a call's first pre- and post-event
// (callPaths reads the first pre-event's, else the first post-event's).
type callFiles struct {
	pre, post         []string
	havePre, havePost bool
}

func newStreamBuild() *streamBuild {
	return &streamBuild{inOrder: true, calls: map[string]*Call{}, waiting: map[string][]*Call{}, named: map[string]agentSeen{}}
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
	ph := gaps.PhaseOf(st.Event)
	call := ph == gaps.Pre || ph == gaps.Post
	if i == 0 || st.At < b.start {
		b.start = st.At
	}
	if i == 0 || st.At > b.end {
		b.end = st.At
	}
	l := lite{agentID: st.AgentID, turnID: st.TurnID, kept: -1}
	if !call || len(st.BatchIDs) > 0 || st.Gate != nil {
		if call {
			st = reader{share: true}.step(v)
		} else {
			st.Inputs, st.Outputs = reader{share: true}.strs(v.Get("inputsSha256")), reader{share: true}.strs(v.Get("outputsSha256"))
		}
		l.kept = int32(len(b.kept))
		b.kept = append(b.kept, &Event{Step: st})
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
	if st.ToolUseID != "" {
		c = b.calls[st.ToolUseID]
	} else if ph == gaps.Post && len(b.waiting[st.Tool]) > 0 {
		c, b.waiting[st.Tool] = b.waiting[st.Tool][0], b.waiting[st.Tool][1:]
	}
	if c == nil {
		c = &Call{ToolUseID: st.ToolUseID, pos: st.Seq, Start: st.At, Pre: []int64{}, Post: []int64{}, Gaps: []string{}}
		if st.ToolUseID != "" {
			b.calls[st.ToolUseID] = c
		} else if ph == gaps.Pre {
			b.waiting[st.Tool] = append(b.waiting[st.Tool], c)
		}
		b.order = append(b.order, c)
	}
	switch f := &c.files; {
	case ph == gaps.Pre && !f.havePre:
		f.pre, f.havePre = stepPaths(&st), true
	case ph == gaps.Post && !f.havePost:
		f.post, f.havePost = stepPaths(&st), true
	}
	c.fill(&st, ph)
}

// stepPaths is what callPaths reads of a step.
func stepPaths(st *Step) []string {
	if len(st.Paths) > 0 {
		return st.Paths
	}
	if st.Path != "" {
		return []string{st.Path}
	}
	return nil
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
		st := &ev.Step
		if st.Gate == nil || st.ToolUseID == "" {
			continue
		}
		c := calls[st.ToolUseID]
		if c == nil {
			continue
		}
		c.denied = c.denied || gaps.Denies(st.Gate.gated, st.Gate.Decision, st.Gate.Enforced)
		if c.Gate == nil {
			c.Gate, c.GateStep = st.Gate, st // a kept step, no row of its own
			gated[st.Seq] = true
		}
	}
	for _, c := range order {
		c.finish()
	}
	// Calls that only a PostToolBatch names (every step with BatchIDs is kept).
	for _, ev := range kept {
		st := &ev.Step
		for j, id := range st.BatchIDs {
			if id == "" || calls[id] != nil {
				continue
			}
			tool := ""
			if j < len(st.BatchTools) {
				tool = st.BatchTools[j]
			}
			c := &Call{ToolUseID: id, Tool: tool, Kind: "tool_call", Start: st.At, pos: st.Seq,
				Pre: []int64{}, Post: []int64{}, Gaps: []string{}, Note: NoteBatchOnly}
			calls[id] = c
			order = append(order, c)
		}
	}

	// Sub-agents, as build places them.
	// The event of a step that is not kept is a call's: never a
	// SubagentStart, SubagentStop or UserPromptSubmit.
	event := func(i int) string {
		if k := b.liteAt(i).kept; k >= 0 {
			return kept[k].Event
		}
		return ""
	}
	byID := false
	for i := 0; i < n; i++ {
		if e := event(i); b.liteAt(i).agentID != "" && e != "SubagentStart" && e != "SubagentStop" {
			byID = true
			break
		}
	}
	agents := map[string]*SubAgent{}
	var open []*SubAgent
	agentOf := map[int64]string{} // seq -> agent id
	for i := 0; i < n; i++ {
		st := b.liteAt(i)
		seq := int64(i)
		var full *Step
		if st.kept >= 0 {
			full = &kept[st.kept].Step
		}
		switch event(i) {
		case "SubagentStart":
			a := agents[st.agentID]
			if a == nil {
				a = &SubAgent{ID: st.agentID, Type: full.AgentType, Start: full.At, Items: []Item{}}
				agents[st.agentID] = a
			}
			open = append(open, a)
			agentOf[seq] = st.agentID
			continue
		case "SubagentStop":
			if a := agents[st.agentID]; a != nil {
				a.End, a.closed = full.At, true
				for k, o := range open {
					if o == a {
						open = append(open[:k], open[k+1:]...)
						break
					}
				}
			}
			agentOf[seq] = st.agentID
			continue
		}
		switch {
		case st.agentID != "":
			if agents[st.agentID] == nil {
				// This step is the first to name the agent: kept, or the
				// call's event named first.
				typ, at := b.named[st.agentID].typ, b.named[st.agentID].at
				if full != nil {
					typ, at = full.AgentType, full.At
				}
				agents[st.agentID] = &SubAgent{ID: st.agentID, Type: typ, Start: at, Items: []Item{}}
			}
			agentOf[seq] = st.agentID
		case !byID && len(open) == 1 && event(i) != "UserPromptSubmit":
			agentOf[seq] = open[0].ID
		}
	}

	// Turns.
	turnAt := make([]int32, n)
	turns = []Turn{{Items: []Item{}}}
	byTurnID := map[string]int{}
	for i := 0; i < n; i++ {
		if event(i) == "UserPromptSubmit" && agentOf[int64(i)] == "" {
			p := &kept[b.liteAt(i).kept].Step // a prompt is no call's event: kept
			turns = append(turns, Turn{Number: len(turns), Prompt: p, Items: []Item{}})
			if p.TurnID != "" {
				byTurnID[p.TurnID] = len(turns) - 1
			}
		}
		turnAt[i] = int32(len(turns) - 1)
	}
	for i := 0; i < n; i++ {
		if t, ok := byTurnID[b.liteAt(i).turnID]; ok && b.liteAt(i).turnID != "" {
			turnAt[i] = int32(t)
		}
	}
	placedAgent := map[string]bool{}
	add := func(ti int, agent string, it Item) {
		if agent == "" || agents[agent] == nil {
			turns[ti].Items = append(turns[ti].Items, it)
			return
		}
		a := agents[agent]
		if !placedAgent[agent] {
			placedAgent[agent] = true
			turns[ti].Items = append(turns[ti].Items, Item{SubAgent: a, pos: it.pos})
		}
		if it.Call != nil {
			a.Calls++
		}
		a.Items = append(a.Items, it)
	}
	type placed struct {
		pos int64
		it  Item
	}
	all := make([]placed, 0, len(order)+len(kept))
	for _, c := range order {
		c.Agent = agentOf[c.pos]
		all = append(all, placed{c.pos, Item{Call: c, pos: c.pos}})
	}
	for _, ev := range kept {
		st := &ev.Step
		ph := gaps.PhaseOf(st.Event)
		if ph == gaps.Pre || ph == gaps.Post || (st.Event == "UserPromptSubmit" && agentOf[st.Seq] == "") || gated[st.Seq] {
			continue
		}
		ev.Agent = agentOf[st.Seq]
		all = append(all, placed{st.Seq, Item{Event: ev, pos: st.Seq}})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].pos < all[b].pos })
	for _, p := range all {
		agent := agentOf[p.pos]
		if ev := p.it.Event; ev != nil && (ev.Event == "SubagentStart" || ev.Event == "SubagentStop") {
			// The start opens the group and the stop closes it: neither
			// is an item of its own, both are the group's marks. A stop
			// of a sub-agent nothing else names stays an event.
			if a := agents[agent]; a != nil {
				a.Marks = append(a.Marks, ev.Step)
				if ev.Event == "SubagentStart" && !placedAgent[agent] {
					placedAgent[agent] = true
					turns[turnAt[p.pos]].Items = append(turns[turnAt[p.pos]].Items, Item{SubAgent: a, pos: p.pos})
				}
				continue
			}
		}
		add(int(turnAt[p.pos]), agent, p.it)
	}
	if len(turns[0].Items) == 0 && len(turns) > 1 {
		turns = turns[1:]
	}

	sum = b.summarize(order, counted)
	sum.SubAgents = len(agents)
	for _, t := range turns {
		if t.Prompt != nil {
			sum.Turns++
		}
	}
	return turns, sum
}

// summarize is summarize over the lite steps.
func (b *streamBuild) summarize(calls []*Call, g gaps.Counts) Summary {
	s := Summary{Steps: b.n, Calls: len(calls), ByKind: map[string]int{}, Files: []File{}, Failed: []*Call{}, Gaps: g}
	files := map[string]*File{}
	var fileOrder []string
	for _, c := range calls {
		s.ByKind[c.Kind]++
		if c.Failed {
			s.Failed = append(s.Failed, c)
		}
		if c.Duration != nil {
			s.ToolMs += *c.Duration
		}
		if c.Kind == "exec" || c.Kind == "tool_call" {
			continue
		}
		for _, p := range b.callPaths(c) {
			f := files[p]
			if f == nil {
				f = &File{Path: p, ByKind: map[string]int{}}
				files[p] = f
				fileOrder = append(fileOrder, p)
			}
			f.ByKind[c.Kind]++
		}
	}
	sort.Strings(fileOrder)
	for _, p := range fileOrder {
		s.Files = append(s.Files, *files[p])
	}
	if b.n > 0 {
		s.Start, s.End = b.start, b.end
		s.TotalMs, _ = between(s.Start, s.End)
	}
	return s
}

// callPaths is callPaths: the files of the call's first pre-event, else
// of its first post-event, else of the step at its position.
func (b *streamBuild) callPaths(c *Call) []string {
	f := &c.files
	switch {
	case len(c.Pre) > 0:
		return f.pre
	case len(c.Post) > 0:
		return f.post
	}
	if c.pos < 0 || c.pos >= int64(b.n) || b.liteAt(int(c.pos)).kept < 0 {
		return nil
	}
	return stepPaths(&b.kept[b.liteAt(int(c.pos)).kept].Step)
}
