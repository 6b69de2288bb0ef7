package review

import (
	"sort"

	"github.com/logbook-project/logbook/internal/gaps"
)

// The pieces of a review that build (every step held) and streamBuild
// (steps folded as they come) share: each rule has its home here, so the
// two paths cannot drift apart (TestStreamBuildMatchesBuild checks that
// they do not).

// joinGate puts gate step st's decision on its call's row, the first
// gate of a toolUseId becoming the row's gate, and reports whether st
// did (it is then no row of its own). own says st may be kept as it is;
// else a copy is kept (build's steps' array is not kept alive).
func joinGate(calls map[string]*Call, st *Step, own bool) bool {
	if st.Gate == nil || st.ToolUseID == "" {
		return false
	}
	c := calls[st.ToolUseID]
	if c == nil {
		return false
	}
	c.denied = c.denied || gaps.Denies(st.Gate.gated, st.Gate.Decision, st.Gate.Enforced)
	if g := c.GateStep(); g != nil {
		// A call held for an approver is decided by its resolution, the
		// call's next gate step (docs/approvals.md): that is its gate.
		if g.Gate.Decision != "hold" || st.Gate.Decision == "hold" {
			return false
		}
	}
	if !own {
		g := *st
		st = &g
	}
	c.setGate(st)
	return true
}

// batchOnly adds to calls and order the calls only st's PostToolBatch
// names: the model asked for them, and no hook ever ran for them.
func batchOnly(st *Step, calls map[string]*Call, order []*Call) []*Call {
	for k, id := range st.BatchIDs {
		if id == "" || calls[id] != nil {
			continue
		}
		tool := ""
		if k < len(st.BatchTools) {
			tool = st.BatchTools[k]
		}
		c := &Call{ToolUseID: id, Tool: tool, Kind: "tool_call", Start: st.At, pos: st.Seq, bits: noteBatchOnly}
		calls[id] = c
		order = append(order, c)
	}
	return order
}

// grouper finds each step's sub-agent: a step names its agent
// (data.agentId, as recent records do), or else lies between the agent's
// SubagentStart and SubagentStop while no other sub-agent runs. Position
// decides only in a record whose sub-agents' steps name no agent (byID
// false): where they do, a step that names none is the main agent's,
// wherever it falls (a background sub-agent runs while the main agent
// goes on: its PostToolBatch, its Stop).
//
// It is a value, and holds the open groups through a pointer: a pointer
// to it would put its maps on the heap, where they were stack (issue 21:
// review allocates no more than it did).
type grouper struct {
	byID    bool
	agents  map[string]*SubAgent
	open    *[]*SubAgent
	agentOf map[int64]string // seq -> agent id
}

// newGrouper is the grouper of n steps; step(i) is whether step i names
// an agent, and its event.
func newGrouper(n int, step func(i int) (agent bool, event string)) grouper {
	g := grouper{agents: map[string]*SubAgent{}, agentOf: map[int64]string{}, open: new([]*SubAgent)}
	for i := 0; i < n && !g.byID; i++ {
		agent, event := step(i)
		g.byID = agent && event != "SubagentStart" && event != "SubagentStop"
	}
	return g
}

// see takes the next step: its seq, event and agent id; first is its
// agentType and time, asked only when the step opens or closes a group.
func (g grouper) see(seq int64, event, id string, first func() (typ, at string)) {
	switch event {
	case "SubagentStart":
		a := g.agents[id]
		if a == nil {
			typ, at := first()
			a = &SubAgent{ID: id, Type: typ, Start: at, Items: []Item{}}
			g.agents[id] = a
		}
		*g.open = append(*g.open, a)
		g.agentOf[seq] = id
		return
	case "SubagentStop":
		if a := g.agents[id]; a != nil {
			_, a.End = first()
			a.closed = true
			open := *g.open
			for k, o := range open {
				if o == a {
					*g.open = append(open[:k], open[k+1:]...)
					break
				}
			}
		}
		g.agentOf[seq] = id
		return
	}
	switch {
	case id != "":
		// A sub-agent whose SubagentStart was not recorded still gets
		// its group, from its first step.
		if g.agents[id] == nil {
			typ, at := first()
			g.agents[id] = &SubAgent{ID: id, Type: typ, Start: at, Items: []Item{}}
		}
		g.agentOf[seq] = id
	case !g.byID && len(*g.open) == 1 && event != "UserPromptSubmit":
		g.agentOf[seq] = (*g.open)[0].ID
	}
}

// placer puts the calls and events, in seq order, into their turns and
// sub-agent groups. Nothing it holds may flow out of it (a result, a
// pointer kept): its maps would then be made on the heap, not the
// stack.
type placer struct {
	turns  []Turn
	agents map[string]*SubAgent
	placed map[string]bool // the groups already an item of their turn
}

// place puts it, of turn ti and sub-agent agent ("" for the main
// session), in its place.
func (p *placer) place(ti int, agent string, it Item) {
	if ev := it.Event; ev != nil && (ev.Event == "SubagentStart" || ev.Event == "SubagentStop") {
		// The start opens the group and the stop closes it: neither
		// is an item of its own, both are the group's marks. A stop
		// of a sub-agent nothing else names stays an event.
		if a := p.agents[agent]; a != nil {
			a.Marks = append(a.Marks, ev.Full())
			if ev.Event == "SubagentStart" && !p.placed[agent] {
				p.placed[agent] = true
				p.turns[ti].Items = append(p.turns[ti].Items, Item{SubAgent: a, pos: it.pos})
			}
			return
		}
	}
	a := p.agents[agent]
	if agent == "" || a == nil {
		p.turns[ti].Items = append(p.turns[ti].Items, it)
		return
	}
	if !p.placed[agent] {
		p.placed[agent] = true
		p.turns[ti].Items = append(p.turns[ti].Items, Item{SubAgent: a, pos: it.pos})
	}
	if it.Call != nil {
		a.Calls++
	}
	a.Items = append(a.Items, it)
}

// doneTurns is the turns (without the one before the first prompt when
// it is empty), and counts them and the agents sub-agents into sum.
func doneTurns(turns []Turn, agents int, sum *Summary) []Turn {
	if len(turns[0].Items) == 0 && len(turns) > 1 {
		turns = turns[1:]
	}
	sum.SubAgents = agents
	for _, t := range turns {
		if t.Prompt != nil {
			sum.Turns++
		}
	}
	return turns
}

// summarize is the summary of n steps from start to end (their earliest
// and latest time) and of calls; paths are a call's files, read before
// it is asked for the next call's.
func summarize(n int, start, end string, calls []*Call, g gaps.Counts, paths func(*Call) []string) Summary {
	s := Summary{Steps: n, Calls: len(calls), ByKind: map[string]int{}, Files: []File{}, Failed: []*Call{}, Gaps: g}
	files := map[string]*File{}
	var fileOrder []string
	for _, c := range calls {
		s.ByKind[c.Kind]++
		if c.Failed {
			s.Failed = append(s.Failed, c)
		}
		if c.bits&hasDuration != 0 {
			s.ToolMs += c.duration
		}
		if c.Kind == "exec" || c.Kind == "tool_call" || c.bits&noteDenied != 0 {
			continue // a denied call never ran: it touched no file
		}
		for _, p := range paths(c) {
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
	if n > 0 {
		s.Start, s.End = start, end
		s.TotalMs, _ = between(s.Start, s.End)
	}
	return s
}

// stepPaths is the files a step names (data.paths, else data.path).
func stepPaths(st *Step) []string {
	if len(st.Paths) > 0 {
		return st.Paths
	}
	if st.Path != "" {
		return []string{st.Path}
	}
	return nil
}
