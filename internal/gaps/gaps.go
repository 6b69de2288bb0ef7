// Package gaps counts what is missing or repeated in a session's events:
// a tool call whose pre-event has no post-event, a pre-event (or
// post-event) delivered twice for one toolUseId, a post-event with no
// pre-event, and a session with no SessionStart. A call an organization
// policy's gate step denied (enforced) never ran: its missing post-event is
// no gap, and it is counted as denied instead. Harnesses lose events (no
// PostToolUse after a crash or a timeout), repeat them, and run hooks in
// parallel, so these are facts about a session, recorded as they came:
// the recorder never merges or drops an event, and the verifier reports
// these counts beside its verdict.
//
// Events are told apart by a step's data.event (the harness's event name,
// spec §8) and data.toolUseId; the order of steps does not matter, since
// parallel hooks may append a post-event before its pre-event.
package gaps

import (
	"sort"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Phase is what an event is to a tool call.
type Phase int

const (
	Other Phase = iota
	Pre         // before the tool runs
	Post        // after it ran (success or failure)
	Start       // a session start
)

// phases maps event names (as the harnesses spell them) to phases.
// Every harness dialect's events reach a record as Claude Code's names
// (data.event; internal/hookevent maps them); logbook-wrap's start and end
// steps (internal/wraprun.EventStart and EventEnd) pair like a tool call, so
// a start with no end is a command whose wrapper was killed.
var phases = map[string]Phase{
	"PreToolUse":         Pre,
	"PostToolUse":        Post,
	"PostToolUseFailure": Post,
	"SessionStart":       Start,
	"logbook-wrap.start": Pre,
	"logbook-wrap.end":   Post,
}

// PhaseOf returns the phase of a data.event name.
func PhaseOf(event string) Phase { return phases[event] }

// Counts is the gap report (logbook-verify --json "gaps").
type Counts struct {
	// UnfinishedToolCalls: toolUseIds with a pre-event and no post-event,
	// but for the calls the policy denied (DeniedToolCalls).
	UnfinishedToolCalls int `json:"unfinishedToolCalls"`
	// DeniedToolCalls: toolUseIds with a pre-event and no post-event that
	// an enforced gate step denied (docs/policy.md §6): they never ran,
	// and are not a gap (Total leaves them out).
	DeniedToolCalls int `json:"deniedToolCalls"`
	// DuplicatePreEvents: pre-events beyond the first for one toolUseId.
	DuplicatePreEvents int `json:"duplicatePreEvents"`
	// DuplicatePostEvents: post-events beyond the first for one toolUseId.
	DuplicatePostEvents int `json:"duplicatePostEvents"`
	// PostWithoutPre: toolUseIds with a post-event and no pre-event.
	PostWithoutPre int `json:"postWithoutPre"`
	// MissingSessionStart: 1 when harness events were recorded and none
	// is a session start, else 0 (a session of logbook-wrap steps alone
	// has no harness to start it).
	MissingSessionStart int `json:"missingSessionStart"`
	// AfterSessionEnd: harness events recorded after a SessionEnd (a late
	// hook, a resumed session, or an agent that ended the session early
	// and went on): a record sealed at that SessionEnd did not hold them.
	AfterSessionEnd int `json:"afterSessionEnd"`
	// UnsentEvents: events the hook could not send to the server (it was
	// down, or its answer was refused), as the hook counted them and the
	// server noted them (data.event logbook.unsent, data.count).
	UnsentEvents int `json:"unsentEvents"`
	// ToolUseIDs names the calls behind the counts, so a report can say
	// which call is unfinished, not only how many are.
	ToolUseIDs *Named `json:"toolUseIds,omitempty"`
}

// Named lists the toolUseIds behind each count, sorted; a repeated id is
// listed once.
type Named struct {
	Unfinished     []string `json:"unfinished"`
	DuplicatePre   []string `json:"duplicatePre"`
	DuplicatePost  []string `json:"duplicatePost"`
	PostWithoutPre []string `json:"postWithoutPre"`
	Denied         []string `json:"denied"`
}

// Total is the number of gaps of every kind (a denied call is none).
func (c Counts) Total() int {
	return c.UnfinishedToolCalls + c.DuplicatePreEvents + c.DuplicatePostEvents + c.PostWithoutPre + c.MissingSessionStart +
		c.AfterSessionEnd + c.UnsentEvents
}

// Tracker sees steps one at a time. The zero value is ready.
type Tracker struct {
	pre, post map[string]int
	denied    map[string]bool // toolUseIds an enforced gate step denied
	started   bool
	harness   bool // some event came from a harness, not from logbook itself
	ended     bool // a SessionEnd was seen (steps come in seq order)
	afterEnd  int
	unsent    int
}

// UnsentEvent is the data.event of a server's note counting events the
// hook could not send (internal/server).
const UnsentEvent = "logbook.unsent"

// GateEvent is data.event of an organization policy's gate step
// (orgpolicy.GateEvent: not imported, record-step links no policy code).
const GateEvent = "PolicyGate"

// ObserveGate takes a gate step: the event it gated (data.gated), the
// call's toolUseId, its decision and whether it was enforced. An enforced
// deny of a PreToolUse or PermissionRequest means the call did not run.
func (t *Tracker) ObserveGate(gated, toolUseID, decision string, enforced bool) {
	if toolUseID == "" || !Denies(gated, decision, enforced) {
		return
	}
	if t.denied == nil {
		t.denied = map[string]bool{}
	}
	t.denied[toolUseID] = true
}

// Denies reports whether a gate step of the event gated, with this
// decision, kept its call from running: an enforced deny of a PreToolUse
// or a PermissionRequest.
func Denies(gated, decision string, enforced bool) bool {
	return enforced && decision == "deny" && (gated == "PreToolUse" || gated == "PermissionRequest")
}

// maxUnsent bounds one note's count (as the server does).
const maxUnsent = 1 << 30

// Observe takes one event: its name and its toolUseId ("" when none).
func (t *Tracker) Observe(event, toolUseID string) {
	if event != "" && !strings.HasPrefix(event, "logbook") {
		t.harness = true
		if t.ended {
			t.afterEnd++
		}
		if event == "SessionEnd" {
			t.ended = true
		}
	}
	switch PhaseOf(event) {
	case Start:
		t.started = true
	case Pre, Post:
		if toolUseID == "" {
			return
		}
		if t.pre == nil {
			t.pre, t.post = map[string]int{}, map[string]int{}
		}
		if PhaseOf(event) == Pre {
			t.pre[toolUseID]++
		} else {
			t.post[toolUseID]++
		}
	}
}

// ObserveData takes a step's data object. A data object read without its
// members (strictjson.Shallow over a long value) is read from src, the
// text it came from.
func (t *Tracker) ObserveData(data *strictjson.Value, src []byte) {
	if data == nil || data.Kind != strictjson.Object {
		return
	}
	if len(data.Members) == 0 && data.End-data.Start > 2 && data.End <= len(src) {
		v, err := strictjson.Shallow(src[data.Start:data.End], strictjson.Options{Lenient: true, MaxDepth: format.MaxDepth}, nil)
		if err != nil {
			return
		}
		data = v
	}
	ev, _ := data.GetString("event")
	id, _ := data.GetString("toolUseId")
	t.Observe(ev, id)
	if ev == GateEvent {
		gated, _ := data.GetString("gated")
		decision, _ := data.GetString("decision")
		en := data.Get("enforced")
		t.ObserveGate(gated, id, decision, en != nil && en.Kind == strictjson.True)
	}
	if ev == UnsentEvent {
		if c := data.Get("count"); c != nil && c.Kind == strictjson.Number {
			if n, err := strconv.Atoi(c.Str); err == nil && n > 0 && n <= maxUnsent && t.unsent <= maxUnsent {
				t.unsent += n
			}
		}
	}
}

// Counts returns the report for the steps seen so far.
func (t *Tracker) Counts() Counts {
	var c Counts
	for id, n := range t.pre {
		c.DuplicatePreEvents += n - 1
		if t.post[id] == 0 {
			if t.denied[id] {
				c.DeniedToolCalls++
			} else {
				c.UnfinishedToolCalls++
			}
		}
	}
	for id, n := range t.post {
		c.DuplicatePostEvents += n - 1
		if t.pre[id] == 0 {
			c.PostWithoutPre++
		}
	}
	if t.harness && !t.started {
		c.MissingSessionStart = 1
	}
	c.AfterSessionEnd, c.UnsentEvents = t.afterEnd, t.unsent
	if c.Total()-c.MissingSessionStart-c.AfterSessionEnd-c.UnsentEvents+c.DeniedToolCalls > 0 {
		n := t.Named()
		c.ToolUseIDs = &n
	}
	return c
}

// Named returns the toolUseIds behind each count.
func (t *Tracker) Named() Named {
	n := Named{Unfinished: t.Unfinished(), Denied: t.Denied()}
	for id, k := range t.pre {
		if k > 1 {
			n.DuplicatePre = append(n.DuplicatePre, id)
		}
	}
	for id, k := range t.post {
		if k > 1 {
			n.DuplicatePost = append(n.DuplicatePost, id)
		}
		if t.pre[id] == 0 {
			n.PostWithoutPre = append(n.PostWithoutPre, id)
		}
	}
	for _, l := range []*[]string{&n.Unfinished, &n.DuplicatePre, &n.DuplicatePost, &n.PostWithoutPre, &n.Denied} {
		if *l == nil {
			*l = []string{}
		}
		sort.Strings(*l)
	}
	return n
}

// Unfinished returns the toolUseIds with a pre-event and no post-event
// that the policy did not deny, sorted.
func (t *Tracker) Unfinished() []string { return t.open(false) }

// Denied returns the toolUseIds with a pre-event and no post-event that
// an enforced gate step denied, sorted.
func (t *Tracker) Denied() []string { return t.open(true) }

func (t *Tracker) open(denied bool) []string {
	var ids []string
	for id := range t.pre {
		if t.post[id] == 0 && t.denied[id] == denied {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
