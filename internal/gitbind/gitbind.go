// Package gitbind is the binding that travels with a commit: a git note
// under refs/notes/logbook naming the sealed record, the session and the
// step that names the commit, and the level the sealer knew, with no
// content and no URL (docs/commits.md). It writes the notes at a seal and
// reads them for a range check (internal/commitcheck); the note's format
// has its one home here.
package gitbind

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// NoteRef is the notes ref the bindings are under.
const NoteRef = "refs/notes/logbook"

// Version is each binding line's "v".
const Version = "logbook/commit-note@0"

// MaxNote bounds a note's size: a binding line is under 300 bytes, and a
// note holds one per session that made the commit. A larger note is
// refused unread (BINDING_MALFORMED).
const MaxNote = 16 << 10

// Binding is one line of a note: the commit was made in Session, whose
// sealed record is RecordID, and its step Step names it. Level is what
// the sealer knew (local, server); the range check judges the level
// itself and never reads this one as proof. LogProof, when the record was
// logged, is its proof of logging (the C2SP tlog-proof logbook-server
// wrote, verbatim): the range check refuses a proof that is not this
// record's (LOG_PROOF_INVALID).
type Binding struct {
	V        string `json:"v"`
	RecordID string `json:"recordId"`
	Session  string `json:"session"`
	Step     int64  `json:"step"`
	Level    string `json:"level"`
	LogProof string `json:"logProof,omitempty"`
}

// ErrMalformed is wrapped by ParseNote's errors.
var ErrMalformed = errors.New("malformed binding")

// ParseNote reads a note: one binding a line, each a strict JSON object
// with exactly Binding's members.
func ParseNote(note []byte) ([]Binding, error) {
	if len(note) > MaxNote {
		return nil, fmt.Errorf("%w: the note is %d bytes, over %d", ErrMalformed, len(note), MaxNote)
	}
	var out []Binding
	for i, line := range bytes.Split(bytes.TrimRight(note, "\n"), []byte("\n")) {
		b, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrMalformed, i+1, err)
		}
		out = append(out, b)
	}
	return out, nil
}

func parseLine(line []byte) (Binding, error) {
	var b Binding
	v, err := strictjson.Parse(line, strictjson.Options{})
	if err != nil {
		return b, err
	}
	if v.Kind != strictjson.Object || len(v.Members) < 5 || len(v.Members) > 6 {
		return b, errors.New("not an object of v, recordId, session, step, level and, when logged, logProof")
	}
	str := func(k string) string { s, _ := v.GetString(k); return s }
	b.V, b.RecordID, b.Session, b.Level = str("v"), str("recordId"), str("session"), str("level")
	if len(v.Members) == 6 {
		p, ok := v.GetString("logProof")
		if !ok || p == "" {
			return b, errors.New("a sixth member that is not logProof, a tlog-proof's text")
		}
		b.LogProof = p
	}
	step := v.Get("step")
	if step == nil || step.Kind != strictjson.Number {
		return b, errors.New("step is not a number")
	}
	if _, err := fmt.Sscan(step.Str, &b.Step); err != nil || b.Step < 0 || fmt.Sprint(b.Step) != step.Str {
		return b, fmt.Errorf("step %q is not a step number", clip(step.Str))
	}
	switch {
	case b.V != Version:
		return b, fmt.Errorf("v is %q, not %s", clip(b.V), Version)
	case len(b.RecordID) != 64 || strings.Trim(b.RecordID, "0123456789abcdef") != "":
		return b, errors.New("recordId is not 64 lowercase hex digits")
	case b.Session == "" || len(b.Session) > 128:
		return b, errors.New("session is empty or over 128 bytes")
	case b.Level != "local" && b.Level != "server" && b.Level != "logged":
		return b, fmt.Errorf("level %q is not local, server or logged", clip(b.Level))
	}
	return b, nil
}

func (b Binding) line() []byte {
	out, _ := json.Marshal(b)
	return out
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Named is a commit step of a record: its seq, the commit and its patch
// id.
type Named struct {
	Step            int64
	Commit, PatchID string
}

// Collect gathers, while a record is verified (as record.Options' or
// verdict.Inputs' Top and EachStep), its session id, its logbook.commit
// steps and its chain's tip (the last step's hash: call Done after the
// verification, which copies it out of the record's bytes).
type Collect struct {
	Session string
	Named   []Named
	Tip     string
}

// Done copies what points into the record's bytes.
func (c *Collect) Done() { c.Tip = strings.Clone(c.Tip) }

// Top reads the session id.
func (c *Collect) Top(rec *strictjson.Value) {
	if s := rec.Get("session"); s != nil {
		id, _ := s.GetString("id")
		c.Session = strings.Clone(id)
	}
}

// Each keeps step i when it is a logbook.commit note.
func (c *Collect) Each(i int, st *strictjson.Value) {
	c.Tip, _ = st.GetString("hash")
	if n, ok := commitStep(i, st); ok {
		c.Named = append(c.Named, n)
	}
}

// Steps verifies a record with opt and returns its session id and its
// logbook.commit steps.
func Steps(data []byte, opt record.Options) (res record.Result, session string, named []Named) {
	var c Collect
	opt.Top, opt.EachStep = c.Top, c.Each
	res = record.Verify(data, opt)
	c.Done()
	return res, c.Session, c.Named
}

// commitStep reads step i when it is a logbook.commit note.
func commitStep(i int, st *strictjson.Value) (Named, bool) {
	if k, _ := st.GetString("kind"); k != "note" {
		return Named{}, false
	}
	d := st.Get("data")
	if d == nil {
		return Named{}, false
	}
	if ev, _ := d.GetString("event"); ev != gitstep.CommitEvent {
		return Named{}, false
	}
	c, _ := d.GetString("commit")
	p, _ := d.GetString("patchId")
	if !gitfacts.IsID(c) {
		return Named{}, false
	}
	return Named{Step: int64(i), Commit: strings.Clone(c), PatchID: strings.Clone(p)}, true
}

// Write adds, for each commit the record at data names, a binding line
// to the commit's note in repo (a line of the same record or session is
// replaced, other sessions' lines are kept). level is what the sealer
// knows; proof, when not empty, is the record's proof of logging, carried
// in each line. It returns the commits noted; a commit not in repo (made
// in another clone) is skipped.
func Write(repo string, data []byte, level string, proof []byte) ([]string, error) {
	res, session, named := Steps(data, record.Options{})
	if !res.OK {
		return nil, fmt.Errorf("the record does not verify: %s", res.Err())
	}
	var noted []string
	var errs []error
	for _, n := range named {
		if _, err := gitfacts.Output(repo, 128, "cat-file", "-e", n.Commit+"^{commit}"); err != nil {
			continue
		}
		b := Binding{V: Version, RecordID: res.RecordID, Session: session, Step: n.Step, Level: level, LogProof: string(proof)}
		if err := addLine(repo, n.Commit, b); err != nil {
			errs = append(errs, fmt.Errorf("commit %s: %w", n.Commit, err))
			continue
		}
		noted = append(noted, n.Commit)
	}
	return noted, errors.Join(errs...)
}

func addLine(repo, commit string, b Binding) error {
	var lines [][]byte
	if old, err := gitfacts.Output(repo, MaxNote, "notes", "--ref", NoteRef, "show", commit); err == nil {
		if prev, err := ParseNote(old); err == nil {
			for _, p := range prev {
				// A later seal of the same session (Codex seals at
				// every turn, a resumed session seals again) holds
				// every step of the earlier one: its binding replaces
				// the earlier record's, which the records folder no
				// longer holds (its file was sealed over).
				if p.RecordID != b.RecordID && p.Session != b.Session {
					lines = append(lines, p.line())
				}
			}
		}
	}
	lines = append(lines, b.line())
	note := append(bytes.Join(lines, []byte("\n")), '\n')
	_, err := gitfacts.Input(repo, bytes.NewReader(note), 4096, "notes", "--ref", NoteRef, "add", "-f", "-F", "-", commit)
	return err
}

// ProofFor says why proof is not a proof of logging of the record of
// session whose chain holds steps steps ending at tip, "" when it is one:
// its leaf (the signed session checkpoint in its extra line) must name
// that session, count every step and end at that tip. Whether the log's
// tree holds the leaf is logbook-verify --log-policy's to check, with the
// proof beside the record; this check needs no key, and refuses a note
// whose proof was taken from another record.
func ProofFor(proof, session string, steps int64, tip string) string {
	p, err := logproof.Parse([]byte(proof))
	if err != nil {
		return err.Error()
	}
	text, _, ok := bytes.Cut(p.Extra, []byte("\n\n"))
	if !ok {
		return "the proof carries no session checkpoint as its leaf"
	}
	c, err := checkpoint.Parse(append(text, '\n'))
	if err != nil {
		return "its leaf: " + err.Error()
	}
	if c.Session != session || c.Size != steps || c.Tip != tip {
		return fmt.Sprintf("the note's proof is for another record: its leaf is a checkpoint of session %s counting %d steps to tip %s; the record is session %s's, %d steps to tip %s",
			clip(c.Session), c.Size, clip(c.Tip), session, steps, clip(tip))
	}
	return ""
}

// TrailerKey is the trailer the commit-msg hook of record-step install
// --trailer adds: the id of each session recording when the commit was
// made (its record does not exist yet), never a URL or content.
const TrailerKey = gitstep.TrailerKey

// MaxTrailerSessions bounds the sessions one commit's trailers name.
const MaxTrailerSessions = 16

// ParseTrailer reads a commit's Logbook-Record trailer values as git
// prints them, comma-separated: each must be a session id.
func ParseTrailer(values string) ([]string, error) {
	var out []string
	for _, v := range strings.Split(values, ",") {
		v = strings.TrimSpace(v)
		if err := journalfile.ValidSessionID(v); err != nil {
			return nil, fmt.Errorf("%w: its %s trailer %q is not a session id", ErrMalformed, TrailerKey, clip(v))
		}
		out = append(out, v)
	}
	if len(out) > MaxTrailerSessions {
		return nil, fmt.Errorf("%w: its %s trailers name %d sessions, over %d", ErrMalformed, TrailerKey, len(out), MaxTrailerSessions)
	}
	return out, nil
}
