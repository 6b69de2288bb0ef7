// Package transcript turns a Claude Code session transcript (the JSONL file
// under ~/.claude/projects) into the hook stdin payloads Claude Code sent, or
// would have sent, while that session ran, in order and with the transcript
// instant each one derives from. Replaying them into a hook-driven recorder
// reproduces a real session without running the agent.
//
// Which events exist and in what order follows what Claude Code does, as
// far as the transcripts' own hook_progress records show it; the rules are
// spelled out in docs/transcripts.md.
package transcript

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/logbook-project/logbook/internal/transcript/lines"
)

// Stats describes one conversion.
type Stats struct {
	Records   int            // lines read from the main transcript
	Counts    map[string]int // emitted events per hook_event_name
	Unmatched []ToolCall     // calls with a PreToolUse but no PostToolUse or PostToolUseFailure
	Silent    []ToolCall     // calls Claude Code ran no hooks for at all
	Hooks     HookCheck      // agreement with the transcript's hook_progress records
}

// ToolCall names one tool call and why it is listed.
type ToolCall struct {
	ToolUseID string
	ToolName  string
	AgentID   string // "" in the main session
	Reason    string
}

// ConvertFile converts the transcript at path. Sub-agent transcripts are
// read from the folder Claude Code puts next to it,
// <dir>/<name>/subagents/agent-<id>.jsonl, when it exists.
//
// The transcript must be a regular file: it is read twice (the evidence
// check reads its bodies again), and a FIFO or device such as /dev/zero
// could block or never end.
func ConvertFile(path string) ([]Event, Stats, error) {
	// O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, Stats{}, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, Stats{}, err
	} else if !st.Mode().IsRegular() {
		return nil, Stats{}, fmt.Errorf("%s: not a regular file (%s)", path, st.Mode().Type())
	}
	agents := map[string]io.Reader{}
	dir := filepath.Join(filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".jsonl"), "subagents")
	names, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl")) // only fails on a bad pattern
	for _, name := range names {
		af, err := os.Open(name)
		if err != nil {
			return nil, Stats{}, err
		}
		defer af.Close()
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "agent-"), ".jsonl")
		agents[id] = af
	}
	return Convert(f, agents)
}

// Convert reads one main transcript and the sub-agent transcripts of the same
// session (keyed by agent id as in the file names, e.g. "a881341" or
// "acompact-fffbd0"; nil is fine) and returns the hook events in the order
// Claude Code fires them. It fails on a line that is not JSON, a bad
// timestamp, or a transcript without a session id.
func Convert(main io.Reader, agents map[string]io.Reader) ([]Event, Stats, error) {
	recs, err := lines.Read(main)
	if err != nil {
		return nil, Stats{}, err
	}
	c := &converter{main: recs, agents: map[string][]*lines.Record{}}
	for id, r := range agents {
		ar, err := lines.Read(r)
		if err != nil {
			return nil, Stats{}, fmt.Errorf("agent %s: %w", id, err)
		}
		c.agents[id] = ar
	}
	if err := c.session(); err != nil {
		return nil, Stats{}, err
	}
	c.walk()
	c.toolEvents(&thread{recs: c.main})

	slices.SortStableFunc(c.out, func(a, b keyed) int {
		return cmp.Or(a.ev.Time.Compare(b.ev.Time), slices.Compare(a.pos, b.pos))
	})
	events := make([]Event, len(c.out))
	c.stats.Records = len(recs)
	c.stats.Counts = map[string]int{}
	for i, k := range c.out {
		events[i] = k.ev
		c.stats.Counts[k.ev.HookEventName]++
	}
	c.stats.Hooks = checkHooks(c.hookRecords(), events)
	return events, c.stats, nil
}

// keyed is an event with its sort position. Events sort by time; equal times
// keep causal order through pos, which is derived from the lines of the
// records the events come from.
type keyed struct {
	ev  Event
	pos []int
}

type converter struct {
	main   []*lines.Record
	agents map[string][]*lines.Record

	sessionID, cwd, transcriptPath, projectDir string
	first, last                                time.Time
	modes                                      []string // permission mode in force at each main record
	firstModel                                 string

	out   []keyed
	stats Stats
}

func (c *converter) session() error {
	c.modes = make([]string, len(c.main))
	mode := "default" // Claude Code's mode until a record says otherwise
	for i, r := range c.main {
		if c.sessionID == "" && r.SessionID != "" {
			c.sessionID = r.SessionID
		}
		if c.cwd == "" && r.Cwd != "" {
			c.cwd = r.Cwd
		}
		if !r.Time.IsZero() {
			if c.first.IsZero() || r.Time.Before(c.first) {
				c.first = r.Time
			}
			if r.Time.After(c.last) {
				c.last = r.Time
			}
		}
		if r.Type == "user" && r.PermissionMode != "" {
			mode = r.PermissionMode
		}
		c.modes[i] = mode
		if c.firstModel == "" && isMainAssistant(r) {
			c.firstModel = modelOf(r)
		}
	}
	if c.sessionID == "" {
		return errors.New("transcript has no sessionId")
	}
	c.projectDir = homeOf(c.cwd) + "/.claude/projects/" + nonAlnum.ReplaceAllString(c.cwd, "-")
	c.transcriptPath = c.projectDir + "/" + c.sessionID + ".jsonl"
	return nil
}

var (
	nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]`)
	homeDir  = regexp.MustCompile(`^(/home/[^/]+|/Users/[^/]+)`)
)

// homeOf guesses the user's home from the session cwd, so that
// transcript_path and cwd name the same (redacted) user; /home/dev otherwise.
func homeOf(cwd string) string {
	if h := homeDir.FindString(cwd); h != "" {
		return h
	}
	return "/home/dev"
}

func isMainAssistant(r *lines.Record) bool {
	return r.Type == "assistant" && !r.IsSidechain && r.Message != nil
}

func modelOf(r *lines.Record) string {
	if r.Message == nil || r.Message.Model == "<synthetic>" {
		return ""
	}
	return r.Message.Model
}

// base returns an event with the common keys: cwd from r when it has one,
// permission_mode as in force at main record i (none when i < 0).
func (c *converter) base(name string, i int, r *lines.Record) Event {
	ev := Event{SessionID: c.sessionID, TranscriptPath: c.transcriptPath, Cwd: c.cwd, HookEventName: name}
	if r != nil && r.Cwd != "" {
		ev.Cwd = r.Cwd
	}
	if i >= 0 && i < len(c.modes) {
		ev.PermissionMode = c.modes[i]
	}
	return ev
}

func (c *converter) emit(ev Event, t time.Time, pos ...int) {
	ev.Time = t
	c.out = append(c.out, keyed{ev: ev, pos: pos})
}

// walk emits the session, prompt, turn and compaction events of the main
// session. Tool events come from toolEvents.
func (c *converter) walk() {
	start := c.base(SessionStart, -1, nil)
	start.PermissionMode = "" // Claude Code sends none on SessionStart
	start.Source, start.Model = "startup", c.firstModel
	c.emit(start, c.first, -1)

	var last, lastText *lines.Record // last turn-relevant record, last assistant record with text
	lastI, model := -1, c.firstModel
	closeTurn := func() {
		// Stop fires when the model ends its turn by itself. A turn that ends
		// in a tool call or a user interrupt gets none: the transcripts
		// record no Stop hook there.
		if last != nil && last.Type == "assistant" && !last.HasToolUse() {
			ev := c.base(Stop, lastI, last)
			ev.StopHookActive = ptr(false)
			ev.Line = last.Line
			if lastText != nil {
				ev.LastAssistantMessage = lines.TextOf(lastText.Blocks())
				ev.Line = lastText.Line
			}
			c.emit(ev, last.Time, last.Line, math.MaxInt32)
		}
		last, lastText = nil, nil
	}
	for i, r := range c.main {
		switch {
		case r.IsSidechain:
		case r.Type == "user":
			if p := c.prompt(i); p != nil {
				closeTurn()
				ev := c.base(UserPromptSubmit, i, r)
				ev.Prompt, ev.Line = p, r.Line
				c.emit(ev, r.Time, r.Line)
			} else if isInterrupt(r) || hasToolResult(r) {
				last, lastI = r, i
			}
		case isMainAssistant(r):
			last, lastI = r, i
			if lines.TextOf(r.Blocks()) != nil {
				lastText = r
			}
			if m := modelOf(r); m != "" {
				model = m
			}
		case r.Type == "system" && r.Subtype == "compact_boundary":
			c.compaction(i, r, model)
		}
	}
	closeTurn()
	end := c.base(SessionEnd, -1, nil)
	end.PermissionMode = ""
	end.Reason = "other"
	c.emit(end, c.last, math.MaxInt32)
}

// prompt returns the prompt text of main record i when it is one the user
// (or Claude Code's task queue) submitted, else nil. Not prompts: tool
// results, isMeta expansions, the compaction summary, "[Request interrupted
// by user]" markers, and local slash commands (/mcp, /model) whose output
// never reached the model. A slash command that did query the model is sent
// as the line the user typed, "/name args".
func (c *converter) prompt(i int) json.RawMessage {
	r := c.main[i]
	if r.IsMeta || r.IsCompactSummary || r.Message == nil {
		return nil
	}
	if raw := r.ContentString(); raw != nil {
		s := lines.Unquote(raw)
		switch {
		case strings.HasPrefix(s, "<command-name>") || strings.HasPrefix(s, "<command-message>"):
			if !c.answered(i) {
				return nil
			}
			line := tag(s, "command-name")
			if args := tag(s, "command-args"); args != "" {
				line += " " + args
			}
			return lines.RawString(line)
		case strings.HasPrefix(s, "<local-command-"), strings.HasPrefix(s, "<bash-"):
			return nil
		}
		return raw
	}
	if hasToolResult(r) || isInterrupt(r) {
		return nil
	}
	return lines.TextOf(r.Blocks())
}

// answered reports whether the model replied to main record i before the
// next user input.
func (c *converter) answered(i int) bool {
	for _, r := range c.main[i+1:] {
		if isMainAssistant(r) {
			return true
		}
		if r.Type == "user" && !r.IsMeta && !r.IsSidechain && !hasToolResult(r) {
			return false
		}
	}
	return false
}

func tag(s, name string) string {
	open, close := "<"+name+">", "</"+name+">"
	a := strings.Index(s, open)
	b := strings.Index(s, close)
	if a < 0 || b < a {
		return ""
	}
	return strings.TrimSpace(s[a+len(open) : b])
}

func isInterrupt(r *lines.Record) bool {
	if r.Type != "user" {
		return false
	}
	s := lines.Unquote(r.ContentString())
	if s == "" {
		s = lines.Unquote(lines.TextOf(r.Blocks()))
	}
	return strings.HasPrefix(s, "[Request interrupted by user")
}

func hasToolResult(r *lines.Record) bool {
	for _, b := range r.Blocks() {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

// compaction emits PreCompact, the SessionStart with source "compact" that
// Claude Code runs after compacting (the transcripts record its hooks), and
// PostCompact.
func (c *converter) compaction(i int, r *lines.Record, model string) {
	trigger := "auto"
	if r.CompactMetadata != nil && r.CompactMetadata.Trigger != "" {
		trigger = r.CompactMetadata.Trigger
	}
	pre := c.base(PreCompact, i, r)
	pre.PermissionMode = ""
	pre.Trigger, pre.CustomInstructions = trigger, json.RawMessage("null")
	c.emit(pre, c.compactStart(i, r), r.Line, 0)

	start := c.base(SessionStart, i, r)
	start.PermissionMode = ""
	start.Source, start.Model = "compact", model
	c.emit(start, r.Time, r.Line, 1)

	post := c.base(PostCompact, i, r)
	post.PermissionMode = ""
	post.Trigger = trigger
	for _, s := range c.main[i+1:] {
		if s.IsCompactSummary {
			post.CompactSummary = s.ContentString()
			break
		}
	}
	c.emit(post, r.Time, r.Line, 2)
}

// compactStart is when compaction began: the summary request in the
// compaction agent's transcript (agent-acompact-*.jsonl) that finished by
// this boundary, else the last record before the boundary.
func (c *converter) compactStart(i int, boundary *lines.Record) time.Time {
	var prev time.Time
	for _, r := range c.main[:i] {
		if !r.Time.IsZero() && !r.IsSidechain {
			prev = r.Time
		}
	}
	best := prev
	for id, recs := range c.agents {
		if !strings.HasPrefix(id, "acompact") || len(recs) == 0 {
			continue
		}
		end := recs[len(recs)-1].Time
		if end.After(boundary.Time) || end.Before(prev) {
			continue
		}
		for _, r := range recs {
			if r.Type == "user" && !r.IsMeta && !r.Time.IsZero() && r.Time.After(best) {
				best = r.Time
				break
			}
		}
	}
	return best
}

func ptr[T any](v T) *T { return &v }
