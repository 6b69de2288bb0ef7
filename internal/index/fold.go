package index

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Step is what the index reads of one step: its time, kind and the data
// members that name a tool, a gate decision, a commit or a lost event.
type Step struct {
	At       string
	Kind     string
	Event    string // data.event
	Tool     string // data.tool
	Decision string // a gate step's data.decision
	Policy   string // a gate step's data.policy
	Commit   string // a logbook.commit note's data.commit
	Reason   string // a logbook.lost note's data.reason
	Count    int64  // a logbook.lost or logbook.unsent note's data.count
}

// StepOf reads a step (a journal line or a record's step, parsed).
func StepOf(v *strictjson.Value) Step {
	var s Step
	s.At, _ = v.GetString("at")
	s.Kind, _ = v.GetString("kind")
	d := v.Get("data")
	if d == nil || d.Kind != strictjson.Object {
		return s
	}
	s.Event, _ = d.GetString("event")
	s.Tool, _ = d.GetString("tool")
	switch s.Event {
	case gaps.GateEvent:
		s.Decision, _ = d.GetString("decision")
		s.Policy, _ = d.GetString("policy")
	case gitstep.CommitEvent:
		s.Commit, _ = d.GetString("commit")
	case gaps.LostEvent, gaps.UnsentEvent:
		s.Reason, _ = d.GetString("reason")
		if c := d.Get("count"); c != nil && c.Kind == strictjson.Number {
			s.Count, _ = strconv.ParseInt(c.Str, 10, 64)
		}
	}
	return s
}

// Header is what a session's journal header (or record) says of it.
type Header struct {
	ID, Cwd, Harness string
}

// Fold builds a session's entry a step at a time, the same way whether
// the steps come from the server's feed or a reindex.
type Fold struct {
	S Session
}

// NewFold starts a session's entry; who (tenant, developer, machine) and
// level are the server's to say.
func NewFold(h Header, tenant, developer, machine, level string) *Fold {
	// The cwd and the harness come from the payload: clipped to their
	// columns, never a reason to lose the entry.
	f := &Fold{S: Session{Tenant: tenant, ID: h.ID, Developer: developer, Machine: machine, Cwd: clip(h.Cwd, 1024), Harness: clip(h.Harness, 128),
		Level: level, Verdict: VerdictOpen}}
	f.S.Repo = repoOf(h.Cwd)
	return f
}

// The verdicts an entry names.
const (
	VerdictOpen       = "open"       // recording, or stopped without a seal
	VerdictSealed     = "sealed"     // the server sealed its record
	VerdictTombstoned = "tombstoned" // deleted under retention; a signed tombstone stands for the record
)

// repoOf names a repository by its folder's name: a fleet's developers
// keep one repository under different home folders.
func repoOf(cwd string) string {
	cwd = strings.ReplaceAll(cwd, `\`, "/")
	b := path.Base(strings.TrimRight(cwd, "/"))
	if b == "." || b == "/" || len(b) > 191 {
		return ""
	}
	return b
}

// Add folds one step in.
func (f *Fold) Add(st Step) {
	s := &f.S
	if ms, ok := millis(st.At); ok {
		if s.Steps == 0 {
			s.StartMS = ms
		}
		s.EndMS = max(s.EndMS, ms)
	}
	s.Steps++
	switch st.Event {
	case "SessionEnd":
		s.Ended = true
	case "SessionStart":
		s.Ended = false // resumed: it ends again, or it stopped
	case gaps.LostEvent:
		if st.Reason == "refused" {
			s.Refused += st.Count
		} else {
			s.Lost += st.Count
		}
	case gaps.UnsentEvent:
		s.Unsent += st.Count
	case gitstep.CommitEvent:
		s.Commits = addTerm(s.Commits, st.Commit)
	}
	if st.Kind == format.KindGate || st.Event == gaps.GateEvent {
		s.Decisions = addTerm(s.Decisions, st.Decision)
		if st.Policy != "" {
			s.Policy = st.Policy
		}
	}
	s.Tools = addTerm(s.Tools, st.Tool)
}

// maxTerms bounds each list: a session naming more tools or commits than
// this is found by the first ones.
const maxTerms = 64

// addTerm adds t to a sorted set, if it is a term (one word of at most
// 191 bytes).
func addTerm(l []string, t string) []string {
	if t == "" || len(t) > 191 || strings.ContainsAny(t, " \t\r\n") || len(l) >= maxTerms {
		return l
	}
	i, found := slices.BinarySearch(l, t)
	if found {
		return l
	}
	return slices.Insert(l, i, t)
}

// millis reads a spec §4 instant as Unix milliseconds.
func millis(at string) (int64, bool) {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return 0, false
	}
	return t.UnixMilli(), true
}

// clip cuts s to at most n bytes, at a character's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
