// Package review reads a record, or a session still in progress, the way a
// reviewer wants it: one row per tool call with its pre- and post-event
// joined by toolUseId, rows grouped into turns under their prompt,
// sub-agents' calls nested under the sub-agent, and every gap named by its
// toolUseId where it happens. It takes bytes and returns values; the
// command (cmd/logbook-review) has the flags, files, terminal and pager.
package review

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Step is the part of a record step a review reads: its position, time,
// kind and summary, the clear-text fields of its data, and its digests.
type Step struct {
	Seq        int64    `json:"seq"`
	At         string   `json:"at"`
	Kind       string   `json:"kind"`
	Summary    string   `json:"summary"`
	Event      string   `json:"event,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	ToolUseID  string   `json:"toolUseId,omitempty"`
	Command    string   `json:"command,omitempty"`
	Path       string   `json:"path,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Detail     string   `json:"detail,omitempty"` // pattern, url or subagent type when there is no command or path
	AgentID    string   `json:"agentId,omitempty"`
	AgentType  string   `json:"agentType,omitempty"`
	TurnID     string   `json:"turnId,omitempty"`
	ExitCode   *int64   `json:"exitCode,omitempty"`
	Duration   *int64   `json:"durationMs,omitempty"`
	BatchIDs   []string `json:"batchToolUseIds,omitempty"` // PostToolBatch: the calls of one model turn
	BatchTools []string `json:"batchTools,omitempty"`
	Inputs     []string `json:"inputsSha256"`
	Outputs    []string `json:"outputsSha256"`
	Gate       *Gate    `json:"gate,omitempty"` // an organization policy's gate step (docs/policy.md §6)
	// Actor is who sent the event, as a fleet's server wrote it
	// (fleet.ActorOf): attested and asserted.
	Actor *fleet.Actor `json:"actor,omitempty"`
}

// Gate is what a gate step decided about its call.
type Gate struct {
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Enforced bool   `json:"enforced"`
	Error    string `json:"error,omitempty"`
	Seq      int64  `json:"seq"`
	// Approver is who decided a held call (docs/approvals.md), as the
	// server authenticated them.
	Approver string `json:"approver,omitempty"`
	gated    string // the event it gated (data.gated)
}

// Session is the record's session header (or the in-progress file's).
type Session struct {
	ID        string `json:"id"`
	Agent     string `json:"agent,omitempty"`
	Goal      string `json:"goal,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	StartedAt string `json:"startedAt,omitempty"`
	EndedAt   string `json:"endedAt,omitempty"`
}

// MaxDepth is the record's nesting bound (spec §1).
const maxDepth = 64

// ReadRecord reads a record file's session and steps. It judges nothing:
// record.Verify does, and a caller shows its verdict first. The steps are
// streamed, one parsed step in memory at a time.
func ReadRecord(data []byte) (Session, []Step, error) {
	var steps []Step
	rec, err := strictjson.Parse(data, strictjson.Options{MaxDepth: maxDepth, Discard: "steps", Stream: func(i int, v *strictjson.Value) error {
		steps = append(steps, reader{share: true}.step(v))
		return nil
	}})
	if err != nil {
		return Session{}, nil, err
	}
	if rec.Kind != strictjson.Object {
		return Session{}, nil, errors.New("not a JSON object")
	}
	return sessionOf(rec), steps, nil
}

// Progress says how far an in-progress file's chain holds.
type Progress struct {
	Steps  int    // steps read
	Broken string // "" when every step links and hashes; else where it breaks
	Torn   bool   // the last line is cut (a writer may be mid-append)
}

// ReadInProgress reads an in-progress file (ID.steps.jsonl): its header
// line, then one step a line. It checks, as the sealer would, that each
// step has the next seq, links to the one before and hashes to its hash;
// the first break is reported and reading goes on, so the review still
// shows what the file holds. A cut last line is reported, not an error.
func ReadInProgress(data []byte) (Session, []Step, Progress, error) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	hv, err := strictjson.Parse(first, strictjson.Options{MaxDepth: maxDepth})
	if err != nil || hv.Get("format") == nil {
		return Session{}, nil, Progress{}, errors.New("first line is not an in-progress header")
	}
	ses := Session{ID: str(hv, "session"), Cwd: str(hv, "cwd"), Agent: str(hv, "harness")}
	var steps []Step
	var pr Progress
	var c chain.Canonicalizer
	var hash [64]byte
	last := ""
	lines := bytes.Split(rest, []byte("\n"))
	for n, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: maxDepth})
		if err != nil {
			if n == len(lines)-1 || (n == len(lines)-2 && len(lines[len(lines)-1]) == 0) {
				pr.Torn = true
				break
			}
			if pr.Broken == "" {
				pr.Broken = fmt.Sprintf("line %d: not JSON: %v", n+2, err)
			}
			continue
		}
		i := len(steps)
		st := stepOf(v)
		if pr.Broken == "" {
			c.B = c.B[:0]
			herr := c.Append(v, &hash)
			p := v.Get("prev")
			switch {
			case st.Seq != int64(i):
				pr.Broken = fmt.Sprintf("line %d: seq is %d, not %d", n+2, st.Seq, i)
			case p == nil || (i == 0) != (p.Kind == strictjson.Null) || (i > 0 && p.Str != last):
				pr.Broken = fmt.Sprintf("line %d: prev does not link to step %d", n+2, i-1)
			case herr != nil || str(v, "hash") != string(hash[:]):
				pr.Broken = fmt.Sprintf("line %d: step %d does not hash to its hash", n+2, i)
			}
			last = string(hash[:])
		}
		steps = append(steps, st)
	}
	pr.Steps = len(steps)
	if len(steps) > 0 {
		ses.StartedAt, ses.EndedAt = steps[0].At, steps[len(steps)-1].At
	}
	return ses, steps, pr, nil
}

func str(v *strictjson.Value, key string) string {
	s, _ := v.GetString(key)
	return strings.Clone(s)
}

// reader copies the strings of a parsed step, or (share) keeps them: a
// record read whole keeps its bytes unchanged for as long as the review
// lives, and strings that point into it cost nothing.
type reader struct {
	share     bool
	noDigests bool // leave Inputs and Outputs out (a call's events: its row shows no digests)
}

func (r reader) str(v *strictjson.Value, key string) string {
	s, _ := v.GetString(key)
	if r.share {
		return s
	}
	return strings.Clone(s)
}

func (r reader) strs(v *strictjson.Value) []string {
	if v == nil || v.Kind != strictjson.Array {
		return nil
	}
	out := make([]string, 0, len(v.Items))
	for i := range v.Items {
		if r.share {
			out = append(out, v.Items[i].Str)
		} else {
			out = append(out, strings.Clone(v.Items[i].Str))
		}
	}
	return out
}

// int64Of is intp without the pointer (and the allocation).
func int64Of(v *strictjson.Value) (int64, bool) {
	if v == nil || v.Kind != strictjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	return n, err == nil
}

func intp(v *strictjson.Value) *int64 {
	if v == nil || v.Kind != strictjson.Number {
		return nil
	}
	n, err := strconv.ParseInt(v.Str, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// stepOf copies what a review reads out of a parsed step (whose memory the
// reader reuses).
func stepOf(v *strictjson.Value) Step { return reader{}.step(v) }

func (r reader) step(v *strictjson.Value) Step {
	str, strs := r.str, r.strs
	st := Step{Kind: str(v, "kind"), At: str(v, "at"), Summary: str(v, "summary")}
	if n, ok := int64Of(v.Get("seq")); ok {
		st.Seq = n
	}
	if !r.noDigests {
		st.Inputs = strs(v.Get("inputsSha256"))
		st.Outputs = strs(v.Get("outputsSha256"))
	}
	d := v.Get("data")
	if d == nil || d.Kind != strictjson.Object {
		return st
	}
	// One pass over data's members (each Get is a scan of them: this
	// read is most of a review's own time per step, issue 21), last to
	// first so that the first of a repeated key wins, as Get's would.
	var pattern, url, subagentType string
	var gate struct {
		decision, rule, reason, err, gated, approver string
		enforced                                     bool
	}
	for k := len(d.Members) - 1; k >= 0; k-- {
		m := &d.Members[k]
		val := &m.Value
		text := func() string {
			if val.Kind != strictjson.String {
				return ""
			}
			if r.share {
				return val.Str
			}
			return strings.Clone(val.Str)
		}
		switch m.Key {
		case fleet.ActorKey:
			// A malformed actor is the verifier's to name
			// (ACTOR_UNATTESTED, with --require-attested); the
			// review shows none.
			if a, ok, err := fleet.ActorOf(d); ok && err == nil {
				st.Actor = &a
			}
		case "event":
			st.Event = text()
		case "tool":
			st.Tool = text()
		case "toolUseId":
			st.ToolUseID = text()
		case "command":
			st.Command = text()
		case "path":
			st.Path = text()
		case "paths":
			st.Paths = strs(val)
		case "pattern":
			pattern = text()
		case "url":
			url = text()
		case "subagentType":
			subagentType = text()
		case "agentId":
			st.AgentID = text()
		case "agentType":
			st.AgentType = text()
		case "turnId":
			st.TurnID = text()
		case "exitCode":
			st.ExitCode = intp(val)
		case "toolUseIds":
			st.BatchIDs = strs(val)
		case "tools":
			st.BatchTools = strs(val)
		case "durationMs":
			st.Duration = intp(val)
		case "decision":
			gate.decision = text()
		case "rule":
			gate.rule = text()
		case "reason":
			gate.reason = text()
		case "enforced":
			gate.enforced = val.Kind == strictjson.True
		case "error":
			gate.err = text()
		case "gated":
			gate.gated = text()
		case "approver":
			gate.approver = text()
		}
	}
	// The last of pattern, url and subagentType that is set.
	for _, s := range []string{pattern, url, subagentType} {
		if s != "" {
			st.Detail = s
		}
	}
	if st.Event == gateEvent {
		st.Gate = &Gate{Decision: gate.decision, Rule: gate.rule, Reason: gate.reason,
			Enforced: gate.enforced, Error: gate.err, Seq: st.Seq, gated: gate.gated, Approver: gate.approver}
	}
	return st
}

// gateEvent is orgpolicy.GateEvent (not imported: review links no policy code).
const gateEvent = "PolicyGate"

// sessionOf reads a record's session header.
func sessionOf(rec *strictjson.Value) Session {
	s := rec.Get("session")
	if s == nil {
		return Session{}
	}
	return Session{ID: str(s, "id"), Agent: str(s, "agent"), Goal: str(s, "goal"), Cwd: str(s, "cwd"),
		StartedAt: str(s, "startedAt"), EndedAt: str(s, "endedAt")}
}
