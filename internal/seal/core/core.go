// Package core closes a session: it reads the in-progress file under its
// lock, names tool calls that never finished, and signs the record. The
// caller gives the check the record must pass (package seal gives the
// full verifier); core itself links no verifier, so that logbook-wrap
// --out can seal in process without the schema validator's start-up.
package core

import (
	"crypto/ed25519"
	"fmt"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gaps"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/record/signed"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Options are the caller's parts of the session header (spec §8).
type Options struct {
	Goal    string // --goal; never taken from a prompt
	EndedAt string // --ended-at; "" means the last step's at
	Cwd     string // used when no event gave a cwd
	// Redactor applies the project's redaction rules to the clear text
	// the seal adds (goal, agent, cwd); nil applies the built-in ones.
	Redactor *redact.Redactor
	Now      string // the sealer's clock, for a torn-tail note
	// Certificates (DER X.509, leaf first) become signerIdentity; the
	// caller has checked that the leaf certifies the signing key.
	Certificates [][]byte
	// Timestamp, when not nil, returns an RFC 3161 token over SHA-256 of
	// the signature (signature.rfc3161); an error leaves nothing sealed.
	Timestamp func(signature []byte) ([]byte, error)
	// Check verifies the sealed record before it is returned: nothing is
	// returned when it fails. package seal sets the full verifier; a
	// program that seals a journal it has just written itself
	// (logbook-wrap --out) may pass a lighter one. Seal refuses to run
	// without one.
	Check func(record []byte) error
	// CheckFile is Check for SealFile: it verifies the record in the
	// file at path (complete and fsynced), without the sealer holding it.
	CheckFile func(path string) error
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
func Seal(j *journalfile.Journal, priv ed25519.PrivateKey, opt Options) (Result, error) {
	var res Result
	if opt.Check == nil {
		return res, fmt.Errorf("seal: no Check given")
	}
	cuts, err := j.Repair(opt.Now)
	if err != nil {
		return res, err
	}
	res.TornBytes = cuts > 0
	var scan scanner
	hdr, steps, err := j.ReadAll(scan.step)
	if err != nil {
		return res, err
	}
	if hdr.Session != j.Session {
		// The header is not signed; a file copied from another session
		// must not seal under this one's name.
		return res, fmt.Errorf("%s belongs to session %q, not %q", journalfile.Path(j.Dir, j.Session), hdr.Session, j.Session)
	}
	var notes []chain.Step
	if ids := scan.unfinished(); len(ids) > 0 {
		res.Unfinished = ids
		notes = append(notes, unfinishedNote(ids, scan.lastAtOr(opt.Now)))
	}
	if len(notes) > 0 {
		if _, err := j.Append(hdr, notes); err != nil {
			return res, err
		}
		scan = scanner{}
		// The first read's steps are stale: let them go before the
		// second read allocates as much again (issue 22).
		steps = journalfile.Steps{}
		if hdr, steps, err = j.ReadAll(scan.step); err != nil {
			return res, err
		}
	}
	if steps.Count == 0 {
		return res, fmt.Errorf("session %s has no steps", j.Session)
	}
	sess, err := session(hdr, &scan, opt)
	if err != nil {
		return res, err
	}
	out, err := signed.AssembleWith(sess, steps.JSON, steps.Count, steps.LastHash, priv,
		signed.Extras{Certificates: opt.Certificates, Timestamp: opt.Timestamp})
	if err != nil {
		return res, err
	}
	// The steps are inside out now: drop them before the check, which
	// makes a canonical copy of out (issue 22: the peak is out and that copy).
	res.Steps, steps = steps.Count, journalfile.Steps{}
	if err := opt.Check(out); err != nil {
		return res, fmt.Errorf("sealed record does not verify (%v); nothing written", err)
	}
	res.Record = out
	return res, nil
}

// session is the record's session header (spec §8) from the journal's
// header, what the scan of its steps found and the caller's options.
func session(hdr journalfile.Header, scan *scanner, opt Options) (signed.Session, error) {
	sess := signed.Session{
		ID:        hdr.Session,
		Agent:     opt.Redactor.String(agent(hdr.Harness, scan.model)), // the harness's version and model are clear text from a payload
		Goal:      opt.Redactor.String(opt.Goal),                       // clear text from the caller: redacted like summaries
		Cwd:       hdr.Cwd,
		StartedAt: scan.firstAt,
		EndedAt:   opt.EndedAt,
	}
	if sess.Cwd == "" {
		sess.Cwd = opt.Redactor.String(opt.Cwd)
	}
	if r := hdr.Recorder; r != nil {
		sess.Recorder = &format.Recorder{Name: r.Name, Version: r.Version, SHA256: r.SHA256}
	}
	if sess.EndedAt == "" {
		sess.EndedAt = scan.lastAt
	} else if before(sess.EndedAt, scan.lastAt) {
		return sess, fmt.Errorf("end time %s is before the last step (%s)", sess.EndedAt, scan.lastAt)
	}
	return sess, nil
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
	calls                  gaps.Tracker
	noted                  map[string]bool // toolUseIds an earlier seal's note named
	// copy: the step's strings point into a buffer the reader reuses
	// (journalfile.Stream), so what is kept is copied.
	copy bool
}

func (s *scanner) step(i int, v *strictjson.Value) error {
	own := func(x string) string { return x }
	if s.copy {
		own = strings.Clone
	}
	at, _ := v.GetString("at")
	if i == 0 {
		s.firstAt = own(at)
	}
	if at != s.lastAt {
		s.lastAt = own(at)
	}
	d := v.Get("data")
	if m, ok := d.GetString("model"); ok && m != "" && s.model == "" {
		s.model = own(m)
	}
	ev, _ := d.GetString("event")
	id, _ := d.GetString("toolUseId")
	if id != "" && (gaps.PhaseOf(ev) != gaps.Other || ev == gaps.GateEvent) {
		id = own(id) // the tracker keeps it
	}
	s.calls.Observe(ev, id)
	if ev == gaps.GateEvent {
		// A call a gate step denied never ran: it is not unfinished.
		gated, _ := d.GetString("gated")
		decision, _ := d.GetString("decision")
		en := d.Get("enforced")
		s.calls.ObserveGate(gated, id, decision, en != nil && en.Kind == strictjson.True)
	}
	if ev == noteEvent {
		// An earlier seal named these already: do not name them twice.
		if s.noted == nil {
			s.noted = map[string]bool{}
		}
		if ids := d.Get("toolUseIds"); ids != nil {
			for _, v := range ids.Items {
				s.noted[own(v.Str)] = true
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

// unfinished returns the toolUseIds with a pre-event and no post-event
// that no earlier note named, sorted. A post-event may land before its
// pre-event (parallel hooks): the order of steps does not matter.
func (s *scanner) unfinished() []string {
	var ids []string
	for _, id := range s.calls.Unfinished() {
		if !s.noted[id] {
			ids = append(ids, id)
		}
	}
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
