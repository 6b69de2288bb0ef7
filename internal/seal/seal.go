// Package seal closes a session: it reads the in-progress file under its
// lock, names tool calls that never finished, and signs the record.
package seal

import (
	"crypto/ed25519"
	"fmt"
	"sort"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/record"
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
	hdr, steps, err := j.ReadAll()
	if err != nil {
		return res, err
	}
	if torn != nil {
		res.TornBytes = true
		torn.At = lastAt(steps, opt.Now)
		if _, err := j.Append(hdr, []chain.Step{*torn}); err != nil {
			return res, err
		}
	}
	if ids := Unfinished(steps); len(ids) > 0 {
		res.Unfinished = ids
		if _, err := j.Append(hdr, []chain.Step{unfinishedNote(ids, lastAt(steps, opt.Now))}); err != nil {
			return res, err
		}
	}
	if torn != nil || len(res.Unfinished) > 0 {
		if hdr, steps, err = j.ReadAll(); err != nil {
			return res, err
		}
	}
	if len(steps) == 0 {
		return res, fmt.Errorf("session %s has no steps", j.Session)
	}
	sess := record.Session{
		ID:        hdr.Session,
		Agent:     Agent(hdr.Harness, steps),
		Goal:      opt.Goal,
		Cwd:       hdr.Cwd,
		StartedAt: atOf(&steps[0]),
		EndedAt:   opt.EndedAt,
	}
	if sess.Cwd == "" {
		sess.Cwd = opt.Cwd
	}
	if sess.EndedAt == "" {
		sess.EndedAt = atOf(&steps[len(steps)-1])
	}
	out, err := record.Assemble(sess, steps, priv)
	if err != nil {
		return res, err
	}
	if v := record.Verify(out, record.Options{}); !v.OK {
		return res, fmt.Errorf("sealed record does not verify (%s: %s); nothing written", v.Code, v.Detail)
	}
	res.Record, res.Steps = out, len(steps)
	return res, nil
}

func atOf(v *strictjson.Value) string { s, _ := v.GetString("at"); return s }

func lastAt(steps []strictjson.Value, now string) string {
	if len(steps) == 0 {
		return now
	}
	return atOf(&steps[len(steps)-1])
}

// Agent names the harness and, when a SessionStart said so, its model.
func Agent(harness string, steps []strictjson.Value) string {
	if harness == "" {
		harness = "unknown"
	}
	for i := range steps {
		if m, ok := steps[i].Get("data").GetString("model"); ok && m != "" {
			return harness + " (" + m + ")"
		}
	}
	return harness
}

// Unfinished returns, sorted, the toolUseIds that have a PreToolUse step but
// no PostToolUse or PostToolUseFailure step, leaving out ids that an earlier
// seal note already named.
func Unfinished(steps []strictjson.Value) []string {
	open := map[string]bool{}
	for i := range steps {
		d := steps[i].Get("data")
		ev, _ := d.GetString("event")
		id, _ := d.GetString("toolUseId")
		switch ev {
		case "PreToolUse":
			if id != "" {
				open[id] = true
			}
		case "PostToolUse", "PostToolUseFailure":
			delete(open, id)
		case noteEvent:
			if ids := d.Get("toolUseIds"); ids != nil {
				for _, v := range ids.Items {
					delete(open, v.Str)
				}
			}
		}
	}
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

const noteEvent = "logbook.unfinishedToolCalls"

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
