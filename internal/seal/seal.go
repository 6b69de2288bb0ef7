// Package seal closes a session: it reads the in-progress file under its
// lock, names tool calls that never finished, and signs the record.
package seal

import (
	"crypto/ed25519"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Options are the caller's parts of the session header (spec §8).
type Options struct {
	Goal    string // --goal; never taken from a prompt
	EndedAt string // --ended-at; "" means the last step's at
	Cwd     string // used when no event gave a cwd
	Now     string // the sealer's clock, for a torn-tail note
}

// Result describes what was sealed.
type Result struct {
	Record     []byte // the record file's bytes
	Steps      int
	Unfinished []string // toolUseIds with a pre-event and no post-event
	TornBytes  bool     // a torn tail was cut (and noted in the record)
}

// Seal builds and signs the record of the locked journal j. It appends, in
// the journal itself, a note naming tool calls whose pre-event never got a
// post-event (once per call: sealing again adds no second note), so that a
// later seal of a resumed session covers the same steps and the same note.
// The record is verified before it is returned.
func Seal(j *journal.Journal, priv ed25519.PrivateKey, opt Options) (Result, error) {
	var res Result
	torn, err := j.Repair()
	if err != nil {
		return res, err
	}
	var scan scanner
	hdr, steps, err := j.ReadAll(scan.step)
	if err != nil {
		return res, err
	}
	if hdr.Session != j.Session {
		// The header is not signed; a file copied from another session
		// must not seal under this one's name.
		return res, fmt.Errorf("%s belongs to session %q, not %q", journal.Path(j.Dir, j.Session), hdr.Session, j.Session)
	}
	var notes []chain.Step
	if torn != nil {
		res.TornBytes = true
		torn.At = scan.lastAtOr(opt.Now)
		notes = append(notes, *torn)
	}
	if ids := scan.unfinished(); len(ids) > 0 {
		res.Unfinished = ids
		notes = append(notes, unfinishedNote(ids, scan.lastAtOr(opt.Now)))
	}
	if len(notes) > 0 {
		if _, err := j.Append(hdr, notes); err != nil {
			return res, err
		}
		scan = scanner{}
		if hdr, steps, err = j.ReadAll(scan.step); err != nil {
			return res, err
		}
	}
	if steps.Count == 0 {
		return res, fmt.Errorf("session %s has no steps", j.Session)
	}
	sess := record.Session{
		ID:        hdr.Session,
		Agent:     agent(hdr.Harness, scan.model),
		Goal:      redact.String(opt.Goal), // clear text from the caller: redacted like summaries
		Cwd:       hdr.Cwd,
		StartedAt: scan.firstAt,
		EndedAt:   opt.EndedAt,
	}
	if sess.Cwd == "" {
		sess.Cwd = opt.Cwd
	}
	if sess.EndedAt == "" {
		sess.EndedAt = scan.lastAt
	} else if before(sess.EndedAt, scan.lastAt) {
		return res, fmt.Errorf("end time %s is before the last step (%s)", sess.EndedAt, scan.lastAt)
	}
	out, err := record.Assemble(sess, steps.JSON, steps.Count, steps.LastHash, priv)
	if err != nil {
		return res, err
	}
	if v := record.Verify(out, record.Options{}); !v.OK {
		return res, fmt.Errorf("sealed record does not verify (%s: %s); nothing written", v.Code, v.Detail)
	}
	res.Record, res.Steps = out, steps.Count
	return res, nil
}

// before reports a < b for two valid spec timestamps.
func before(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Before(tb)
}

// scanner gathers, in one pass over the steps, what the session header
// and the unfinished-call note need.
type scanner struct {
	firstAt, lastAt, model string
	open                   map[string]bool // toolUseIds with a pre-event and no post-event yet
	posted                 map[string]bool // toolUseIds with a post-event (it may land first)
}

func (s *scanner) step(i int, v *strictjson.Value) error {
	at, _ := v.GetString("at")
	if i == 0 {
		s.firstAt = at
	}
	s.lastAt = at
	d := v.Get("data")
	if m, ok := d.GetString("model"); ok && m != "" && s.model == "" {
		s.model = m
	}
	ev, _ := d.GetString("event")
	id, _ := d.GetString("toolUseId")
	if s.open == nil {
		s.open, s.posted = map[string]bool{}, map[string]bool{}
	}
	switch ev {
	case "PreToolUse", wrapStart:
		// Concurrent hooks may append a post-event before its pre-event.
		if id != "" && !s.posted[id] {
			s.open[id] = true
		}
	case "PostToolUse", "PostToolUseFailure", wrapEnd:
		delete(s.open, id)
		s.posted[id] = true
	case noteEvent:
		// An earlier seal named these already: do not name them twice.
		if ids := d.Get("toolUseIds"); ids != nil {
			for _, v := range ids.Items {
				delete(s.open, v.Str)
			}
		}
	}
	return nil
}

func (s *scanner) lastAtOr(now string) string {
	if s.lastAt == "" {
		return now
	}
	return s.lastAt
}

// unfinished returns the toolUseIds still open, sorted.
func (s *scanner) unfinished() []string {
	ids := make([]string, 0, len(s.open))
	for id := range s.open {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// agent names the harness and, when a SessionStart said so, its model.
func agent(harness, model string) string {
	if harness == "" {
		harness = "unknown"
	}
	if model != "" {
		return harness + " (" + model + ")"
	}
	return harness
}

const noteEvent = "logbook.unfinishedToolCalls"

// The steps logbook-wrap appends before and after a command
// (internal/wrap.EventStart and EventEnd): a start with no end is a
// command whose wrapper was killed, named like an unfinished tool call.
const (
	wrapStart = "logbook-wrap.start"
	wrapEnd   = "logbook-wrap.end"
)

func unfinishedNote(ids []string, at string) chain.Step {
	return chain.Step{
		At:      at,
		Kind:    "note",
		Summary: fmt.Sprintf("seal: %d tool call(s) have a pre-event and no post-event: %s", len(ids), clipList(ids)),
		Data: strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str(noteEvent)},
			strictjson.Member{Key: "toolUseIds", Value: strictjson.StrArr(ids)},
		),
	}
}

func clipList(ids []string) string {
	if len(ids) > 3 {
		return strings.Join(ids[:3], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}
