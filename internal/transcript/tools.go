package transcript

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/transcript/concurrency"

	"github.com/logbook-project/logbook/internal/transcript/lines"
)

// thread is one tool-calling conversation: the main session, or a sub-agent
// whose events nest inside the Task call that started it.
type thread struct {
	recs      []*lines.Record
	agentID   string
	agentType string
	mode      string // permission mode in force, for sub-agents
	anchor    []int  // sort position prefix for a sub-agent's events
}

type toolCall struct {
	use     lines.Block
	rec     *lines.Record // assistant record holding the tool_use block
	idx     int           // block index in rec
	i       int           // index of rec in the thread
	order   int           // position among the calls of the same assistant message
	res     *toolResult
	start   time.Time   // when Claude Code began running it (PreToolUse)
	blocker *toolResult // the earlier call it had to wait for, if any
}

type toolResult struct {
	b   lines.Block
	rec *lines.Record
	idx int
	i   int
}

func (th *thread) pos(r *lines.Record, idx, sub int) []int {
	return append(slices.Clone(th.anchor), r.Line, idx, sub)
}

// toolEvents emits PreToolUse and PostToolUse/PostToolUseFailure for every
// tool call of th, and the sub-agent events of every Task call.
func (c *converter) toolEvents(th *thread) {
	var calls []*toolCall
	byID := map[string]*toolCall{}
	perMsg := map[string]int{}
	for i, r := range th.recs {
		if r.Type != "assistant" || r.Message == nil || (th.agentID == "" && r.IsSidechain) {
			continue
		}
		for idx, b := range r.Blocks() {
			if b.Type != "tool_use" {
				continue
			}
			tc := &toolCall{use: b, rec: r, idx: idx, i: i, order: perMsg[r.Message.ID]}
			perMsg[r.Message.ID]++
			calls = append(calls, tc)
			byID[b.ID] = tc
		}
	}
	for i, r := range th.recs {
		if r.Type != "user" {
			continue
		}
		for idx, b := range r.Blocks() {
			if tc := byID[b.ToolUseID]; b.Type == "tool_result" && tc != nil && tc.res == nil {
				tc.res = &toolResult{b: b, rec: r, idx: idx, i: i}
			}
		}
	}
	schedule(calls)
	for _, tc := range calls {
		c.toolCallEvents(th, tc)
	}
}

// schedule sets when each call started. Claude Code runs the calls of one
// assistant message as they stream in, but a call that is not
// concurrency-safe waits for all earlier calls of the message to finish, and
// a safe call waits for earlier unsafe ones. A call finishes at its
// tool_result record.
func schedule(calls []*toolCall) {
	for k, tc := range calls {
		tc.start = tc.rec.Time
		safe := concurrency.Safe(tc.use.Name, tc.use.Input)
		for _, prev := range calls[:k] {
			if prev.rec.Message.ID != tc.rec.Message.ID || prev.res == nil {
				continue
			}
			if safe && concurrency.Safe(prev.use.Name, prev.use.Input) {
				continue
			}
			if done := prev.res.rec.Time; !done.Before(tc.start) {
				tc.start, tc.blocker = done, prev.res
			}
		}
	}
}

const rejected = "The user doesn't want to proceed with this tool use."

func (c *converter) toolCallEvents(th *thread, tc *toolCall) {
	note := func(list *[]ToolCall, reason string) {
		*list = append(*list, ToolCall{ToolUseID: tc.use.ID, ToolName: tc.use.Name, AgentID: th.agentID, Reason: reason})
	}
	res := tc.res
	var content string
	if res != nil {
		content = lines.Unquote(res.b.Content)
		if content == "" {
			content = lines.Unquote(lines.TextOf(contentBlocks(res.b.Content)))
		}
	}
	switch {
	case res != nil && strings.HasPrefix(content, "<tool_use_error>"):
		// Input validation failed, or a sibling call's error cancelled this
		// one: Claude Code returns the error before running any hook.
		note(&c.stats.Silent, "tool_use_error: "+strings.TrimSuffix(strings.TrimPrefix(content, "<tool_use_error>"), "</tool_use_error>"))
		return
	case res != nil && strings.HasPrefix(content, rejected) && !tc.start.Before(res.rec.Time):
		// Interrupted while still queued behind another call: it never ran.
		note(&c.stats.Silent, "interrupted by the user before it started")
		return
	}

	pre := c.toolBase(th, PreToolUse, tc.i, tc.rec, tc)
	if th.agentID == "" {
		pre.Line = tc.rec.Line
	}
	prePos := th.pos(tc.rec, tc.idx, 0)
	if tc.blocker != nil {
		prePos = th.pos(tc.blocker.rec, tc.blocker.idx, 1+tc.order)
	}
	c.emit(pre, tc.start, prePos...)

	switch {
	case res == nil:
		note(&c.stats.Unmatched, "no tool_result in the transcript")
		return
	case strings.HasPrefix(content, rejected):
		// The user interrupted the running call: the transcripts show no
		// PostToolUse or PostToolUseFailure hook for it.
		note(&c.stats.Unmatched, "interrupted by the user while running")
		return
	}
	if tc.use.Name == "Task" || tc.use.Name == "Agent" {
		c.subagent(th, tc, prePos)
	}
	var post Event
	if res.b.IsError {
		post = c.toolBase(th, PostToolUseFailure, res.i, res.rec, tc)
		post.Error, post.IsInterrupt = errorText(res.b.Content), ptr(false)
	} else {
		// tool_response is what the tool returned to Claude Code
		// (toolUseResult); sub-agent transcripts and agent_progress copies
		// often lack it, and then the text the model saw stands in.
		post = c.toolBase(th, PostToolUse, res.i, res.rec, tc)
		post.ToolResponse = res.rec.ToolUseResult
		if len(post.ToolResponse) == 0 {
			post.ToolResponse, post.ResponseFromText = res.b.Content, true
		}
		post.DurationMs = durationOf(res.rec.ToolUseResult)
	}
	post.ResultContent = res.b.Content
	if th.agentID == "" {
		post.Line, post.UseLine = res.rec.Line, tc.rec.Line
	}
	c.emit(post, res.rec.Time, th.pos(res.rec, res.idx, 0)...)
}

// toolBase fills the keys shared by the tool events of one call.
func (c *converter) toolBase(th *thread, name string, i int, r *lines.Record, tc *toolCall) Event {
	var ev Event
	if th.agentID == "" {
		ev = c.base(name, i, r)
	} else {
		ev = c.base(name, -1, r)
		ev.PermissionMode, ev.AgentID, ev.AgentType = th.mode, th.agentID, th.agentType
	}
	ev.ToolName, ev.ToolInput, ev.ToolUseID = tc.use.Name, tc.use.Input, tc.use.ID
	if len(ev.ToolInput) == 0 {
		ev.ToolInput = json.RawMessage("{}")
	}
	return ev
}

func contentBlocks(raw json.RawMessage) []lines.Block {
	var bs []lines.Block
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	return bs
}

// errorText is the tool_result content as one string: PostToolUseFailure's
// error is text, e.g. "Exit code 1\n...".
func errorText(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && raw[0] == '"' {
		return raw
	}
	if t := lines.TextOf(contentBlocks(raw)); t != nil {
		return t
	}
	return lines.RawString("")
}

// durationOf reads the duration a tool recorded about itself (Glob and
// WebFetch durationMs, Task totalDurationMs, WebSearch durationSeconds).
// Other tools record none, and then duration_ms is left out.
func durationOf(raw json.RawMessage) *int64 {
	var d struct {
		DurationMs      *float64 `json:"durationMs"`
		TotalDurationMs *float64 `json:"totalDurationMs"`
		DurationSeconds *float64 `json:"durationSeconds"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &d) != nil {
		return nil
	}
	switch {
	case d.DurationMs != nil:
		return ptr(int64(math.Round(*d.DurationMs)))
	case d.TotalDurationMs != nil:
		return ptr(int64(math.Round(*d.TotalDurationMs)))
	case d.DurationSeconds != nil:
		return ptr(int64(math.Round(*d.DurationSeconds * 1000)))
	}
	return nil
}

// subagent emits SubagentStart, the sub-agent's own tool events and
// SubagentStop for a Task call that ran an agent. The agent's records come
// from its transcript (subagents/agent-<id>.jsonl) when given, else from the
// agent_progress copies in the main transcript.
func (c *converter) subagent(th *thread, tc *toolCall, prePos []int) {
	if th.agentID != "" {
		return // sub-agents cannot start sub-agents
	}
	var tr struct {
		AgentID string          `json:"agentId"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(tc.res.rec.ToolUseResult, &tr) // absent or not an object: no id from here
	var progress []*lines.Record
	for _, r := range c.main {
		if r.Data != nil && r.Data.Type == "agent_progress" && r.ParentToolUseID == tc.use.ID && r.Data.Message != nil {
			if tr.AgentID == "" {
				tr.AgentID = r.Data.AgentID
			}
			progress = append(progress, r.Data.Message)
		}
	}
	if tr.AgentID == "" {
		return
	}
	var input struct {
		SubagentType string `json:"subagent_type"`
	}
	_ = json.Unmarshal(tc.use.Input, &input)
	if input.SubagentType == "" {
		input.SubagentType = "general-purpose" // Claude Code's default agent
	}
	recs, fromFile := c.agents[tr.AgentID]
	if !fromFile {
		recs = progress
	}
	sub := &thread{recs: recs, agentID: tr.AgentID, agentType: input.SubagentType,
		mode: c.modes[tc.i], anchor: append(slices.Clone(prePos), 1)}

	startAt, stopAt := tc.start, tc.res.rec.Time
	if len(recs) > 0 && !recs[0].Time.IsZero() {
		startAt = recs[0].Time
	}
	var lastText json.RawMessage
	for _, r := range recs {
		if r.Type == "assistant" && fromFile && r.Time.Before(stopAt) {
			if t := lines.TextOf(r.Blocks()); t != nil {
				lastText = t
			}
		}
	}
	if fromFile && len(recs) > 0 && recs[len(recs)-1].Type == "assistant" && recs[len(recs)-1].Time.Before(stopAt) {
		stopAt = recs[len(recs)-1].Time
	}

	start := c.base(SubagentStart, -1, tc.rec)
	start.AgentID, start.AgentType = tr.AgentID, input.SubagentType
	c.emit(start, startAt, append(slices.Clone(sub.anchor), -1)...)

	c.toolEvents(sub)

	stop := c.base(SubagentStop, tc.i, tc.res.rec)
	stop.AgentID, stop.AgentType = tr.AgentID, input.SubagentType
	stop.StopHookActive = ptr(false)
	stop.AgentTranscriptPath = c.projectDir + "/" + c.sessionID + "/subagents/agent-" + tr.AgentID + ".jsonl"
	stop.LastAssistantMessage = lastText
	if lastText == nil {
		stop.LastAssistantMessage = lines.TextOf(contentBlocks(tr.Content)) // the Task result is the agent's final text
	}
	c.emit(stop, stopAt, th.pos(tc.res.rec, tc.res.idx, -1)...)
}
