// Package commitcheck is logbook-verify --commits: each commit of a range
// judged by its binding (the git note of internal/gitbind) and the
// record it names, verified as logbook-verify verifies a record
// (internal/verdict), and said in one line (docs/commits.md). Git is
// read through internal/gitfacts, every output bounded: a range, a note
// or a notes ref that is too large or not what it claims is a named
// error or a refusal, never a crash or an unbounded read.
package commitcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/verdict"
)

// Named errors: the range cannot be checked at all.
var (
	// ErrShallow: the repository is a shallow clone and the range
	// reaches past what it holds.
	ErrShallow = errors.New("SHALLOW_CLONE: the repository is a shallow clone and the range reaches past its history (git fetch --unshallow, or a deeper fetch-depth)")
	// ErrNotesRef: refs/notes/logbook does not point at a notes commit.
	ErrNotesRef = errors.New("NOTES_REF_INVALID: " + gitbind.NoteRef + " does not point at a commit")
	// ErrTooManyCommits: the range holds more commits than MaxCommits.
	ErrTooManyCommits = errors.New("RANGE_TOO_LARGE: the range holds more commits than --max-commits")
)

// Status of a commit's line.
const (
	Recorded = "recorded" // bound to a record that verifies and names it
	Unbound  = "unbound"  // no binding: a person's commit, or recording was off
	Refused  = "refused"  // a binding that does not hold (Code)
	Unknown  = "unknown"  // cannot tell (a shallow clone's boundary)
)

// Options are a range check's inputs.
type Options struct {
	Repo    string // a directory in the work tree
	Range   string // BASE..HEAD, or any rev-list range
	Records string // the folder of records
	// Load gives the verdict inputs for the record at a path (the
	// pinned keys, the policy files, its checkpoints): logbook-verify's
	// flags, read once (internal/verdictflags).
	Load func(path string) (verdict.Inputs, error)
	// RequireAll: every commit must be recorded (--require-record all);
	// else only a binding that does not hold fails (agent).
	RequireAll bool
	// RequireLevel: a commit's record must hold at this level or above
	// (local, server, logged; "" any), else LEVEL_TOO_LOW.
	RequireLevel string
	MaxCommits   int // 0: 100,000
}

// Line is one commit's verdict, as printed and as --json's object.
type Line struct {
	Commit   string  `json:"commit"`
	OK       bool    `json:"ok"`
	Status   string  `json:"status"`
	Code     *string `json:"code"`
	Detail   string  `json:"detail"`
	RecordID string  `json:"recordId,omitempty"`
	Session  string  `json:"session,omitempty"`
	Step     *int64  `json:"step,omitempty"`
	Level    string  `json:"level,omitempty"`
	Policy   string  `json:"policy,omitempty"`
	// By is how the record names the commit: "commit" (its id) or
	// "patchId" (the same change, rebased or cherry-picked).
	By string `json:"by,omitempty"`
}

// Check judges every commit of the range, newest first, handing each
// line to each; it returns whether the range passes.
func Check(o Options, each func(Line)) (bool, error) {
	max := o.MaxCommits
	if max <= 0 {
		max = 100000
	}
	// The records are verified (Go, on this process's CPU) while git
	// lists the range and reads its notes (git's processes): neither
	// waits for the other.
	var ix *index
	var ixErr error
	verified := make(chan struct{})
	go func() {
		defer close(verified)
		ix, ixErr = readRecords(o.Records, o.Load)
	}()
	defer func() { <-verified }()
	shallow, err := shallowSet(o.Repo)
	if err != nil {
		return false, err
	}
	commits, trailers, err := revList(o.Repo, o.Range, max, len(shallow) > 0)
	if err != nil {
		return false, err
	}
	notes, err := readNotes(o.Repo, commits)
	if err != nil {
		return false, err
	}
	<-verified
	if ixErr != nil {
		return false, ixErr
	}
	pass := true
	pids := &patches{repo: o.Repo, rng: o.Range}
	for _, c := range commits {
		l := judge(pids, c, notes[c], shallow[c], ix)
		if t, ok := trailers[c]; ok {
			l = t.judge(l, notes[c], ix)
		}
		if l.Status == Recorded && levels[l.Level] < levels[o.RequireLevel] {
			l = refuse(l, format.LevelTooLow, fmt.Sprintf("made in session %s (record %s), at level %s: %s is required", l.Session, l.RecordID, l.Level, o.RequireLevel))
		}
		l.OK = l.Status == Recorded || (l.Status == Unbound && !o.RequireAll)
		pass = pass && l.OK
		each(l)
	}
	return pass, nil
}

// levels orders the levels of an accepted record.
var levels = map[string]int{"local": 1, "server": 2, "logged": 3}

// shallowSet is the shallow clone's boundary commits (none in a full
// clone).
func shallowSet(repo string) (map[string]bool, error) {
	// One rev-parse says both: is it shallow, and where its list is.
	out, err := gitfacts.Output(repo, 8192, "rev-parse", "--is-shallow-repository", "--path-format=absolute", "--git-path", "shallow")
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	set := map[string]bool{}
	if len(f) != 2 || f[0] != "true" {
		return set, nil
	}
	data, err := os.ReadFile(f[1])
	if err != nil {
		return nil, err
	}
	for _, id := range strings.Fields(string(data)) {
		set[id] = true
	}
	return set, nil
}

// revList lists the range's commits, at most max, and the sessions
// their Logbook-Record trailers name (git reads the messages; a trailer
// line over maxTrailer bytes comes back cut and is refused, never read
// whole into memory).
func revList(repo, rng string, max int, shallow bool) ([]string, map[string]trailer, error) {
	if rng == "" || strings.HasPrefix(rng, "-") {
		return nil, nil, fmt.Errorf("--commits %q: want a range such as main..HEAD", rng)
	}
	var ids []string
	trailers := map[string]trailer{}
	err := gitfacts.CutLines(repo, maxTrailer, func(line string, cut bool) error {
		if len(ids) == max {
			return ErrTooManyCommits
		}
		id, values, _ := strings.Cut(line, "\t")
		if !gitfacts.IsID(id) {
			return fmt.Errorf("git rev-list printed %q", clip(line))
		}
		ids = append(ids, id)
		if cut || values != "" {
			trailers[id] = parseTrailer(values, cut)
		}
		return nil
	}, "rev-list", "--no-commit-header", "--format=%H%x09%(trailers:key="+gitbind.TrailerKey+",valueonly,separator=%x2C,unfold)",
		fmt.Sprintf("--max-count=%d", max+1), rng, "--")
	if err != nil && shallow && !errors.Is(err, ErrTooManyCommits) {
		return nil, nil, fmt.Errorf("%w (%v)", ErrShallow, err)
	}
	return ids, trailers, err
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// note is a commit's note: its bindings, or why it has none that reads.
type note struct {
	bindings []gitbind.Binding
	err      error
}

// readNotes reads the notes of commits (those of the range only are
// kept, whatever the notes ref holds).
func readNotes(repo string, commits []string) (map[string]*note, error) {
	notes := map[string]*note{}
	// One for-each-ref says both: is there a notes ref, and what it
	// points at (nothing printed: no ref, no commit has a binding).
	typ, err := gitfacts.Output(repo, 256, "for-each-ref", "--format=%(objecttype)", gitbind.NoteRef)
	switch t := strings.TrimSpace(string(typ)); {
	case err != nil:
		return nil, err
	case t == "":
		return notes, nil
	case t != "commit":
		return nil, ErrNotesRef
	}
	in := make(map[string]bool, len(commits))
	for _, c := range commits {
		in[c] = true
	}
	blobOf := map[string]string{}
	var blobs []string
	err = gitfacts.Lines(repo, 200, func(line string) error {
		blob, commit, ok := strings.Cut(line, " ")
		if !ok || !gitfacts.IsID(blob) || !gitfacts.IsID(commit) {
			return fmt.Errorf("%w: git notes list printed %q", ErrNotesRef, line)
		}
		if in[commit] {
			blobOf[commit] = blob
			blobs = append(blobs, blob)
		}
		return nil
	}, "notes", "--ref", gitbind.NoteRef, "list")
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNotesRef, err)
	}
	content := map[string]*note{}
	err = gitfacts.Objects(repo, blobs, gitbind.MaxNote, func(id, typ string, size int64, b []byte) {
		n := &note{}
		switch {
		case typ != "blob":
			n.err = fmt.Errorf("%w: the note is a %s, not a blob", gitbind.ErrMalformed, typ)
		case b == nil:
			n.err = fmt.Errorf("%w: the note is %d bytes, over %d", gitbind.ErrMalformed, size, gitbind.MaxNote)
		default:
			n.bindings, n.err = gitbind.ParseNote(b)
		}
		content[id] = n
	})
	if err != nil {
		return nil, err
	}
	for c, blob := range blobOf {
		notes[c] = content[blob]
	}
	return notes, nil
}

// judge is one commit's line.
func judge(repo *patches, commit string, n *note, boundary bool, ix *index) Line {
	l := Line{Commit: commit}
	if boundary {
		l.Status, l.Detail = Unknown, "cannot tell: the shallow clone's boundary (its parents are not in the clone, so its patch id is not its own)"
		return l
	}
	if n == nil {
		return unbound(repo, l, ix)
	}
	if n.err != nil {
		return refuse(l, format.BindingMalformed, n.err.Error())
	}
	// Every binding of the note must hold; the line names the first.
	var first *Line
	for _, b := range n.bindings {
		bl := bound(repo, Line{Commit: commit}, b, ix)
		if bl.Status != Recorded {
			return bl
		}
		if first == nil {
			first = &bl
		}
	}
	return *first
}

// bound judges one binding of a commit's note.
func bound(repo *patches, l Line, b gitbind.Binding, ix *index) Line {
	r := ix.byID[b.RecordID]
	l.RecordID, l.Session = b.RecordID, b.Session
	if rr := ix.refused[b.Session]; r == nil && rr != nil {
		return refuse(l, rr.out.Result.Code, fmt.Sprintf("the note names record %s of session %s, which the records folder does not hold; its record of that session, %s (record %s), is refused: %s",
			b.RecordID, b.Session, rr.file, rr.out.Result.RecordID, rr.out.Result.Detail))
	}
	if r == nil {
		d := fmt.Sprintf("the note names record %s of session %s, which the records folder does not hold", b.RecordID, b.Session)
		if n := len(ix.unnamed); n > 0 {
			d += fmt.Sprintf("; %d record file(s) there were refused before their id could be known, the first %s", n, ix.unnamed[0])
		}
		return refuse(l, format.RecordMissing, d)
	}
	if !r.out.Result.OK {
		// The record's own refusal: re-signed by another key, edited, ….
		return refuse(l, r.out.Result.Code, fmt.Sprintf("record %s (%s): %s", b.RecordID, r.file, r.out.Result.Detail))
	}
	if r.session != b.Session {
		return refuse(l, format.BindingForged, fmt.Sprintf("the note says session %s, and record %s is session %s's", b.Session, b.RecordID, r.session))
	}
	if b.LogProof != "" {
		if why := gitbind.ProofFor(b.LogProof, r.session, r.out.Result.StepCount, r.tip); why != "" {
			return refuse(l, format.LogProofInvalid, fmt.Sprintf("record %s: %s", b.RecordID, why))
		}
	}
	named, ok := r.steps[b.Step]
	if !ok {
		return refuse(l, format.BindingForged, fmt.Sprintf("step %d of record %s names no commit", b.Step, b.RecordID))
	}
	if named == l.Commit {
		return recorded(l, r, b.Step, "commit")
	}
	if _, other := r.byCommit[l.Commit]; other {
		return refuse(l, format.BindingForged, fmt.Sprintf("the note names step %d, which names commit %s; the record names this commit at another step", b.Step, named))
	}
	// The note was carried (notes.rewriteRef) or copied to a commit the
	// record never saw: the same change is still the session's.
	if pid := repo.of(l.Commit); pid != "" {
		if s, ok := r.byPatch[pid]; ok {
			return recorded(l, r, s, "patchId")
		}
	}
	return refuse(l, format.CommitNotInRecord, fmt.Sprintf("record %s of session %s names neither this commit nor its patch id (step %d names %s: amended, squashed or a note copied)", b.RecordID, b.Session, b.Step, named))
}

// unbound is a commit with no note: the same commit, or the same change
// (patch id, after a rebase or a cherry-pick), named by an accepted
// record of the folder is still the session's.
func unbound(repo *patches, l Line, ix *index) Line {
	if r := ix.byCommit[l.Commit]; r != nil {
		return recorded(l, r, r.byCommit[l.Commit], "commit")
	}
	if len(ix.byPatch) > 0 {
		if pid := repo.of(l.Commit); pid != "" {
			if r := ix.byPatch[pid]; r != nil {
				return recorded(l, r, r.byPatch[pid], "patchId")
			}
		}
	}
	l.Status, l.Detail = Unbound, "no binding: not made in a recorded session (a person's commit, or recording was off)"
	return l
}

// patches are the range's patch ids, taken the first time one is
// needed, for the whole range in one pipeline (gitfacts.PatchIDs): a
// range of people's commits beside records costs one git log, not two
// processes a commit. A patch id that cannot be taken is "": the commit
// is then judged by its id alone, never accepted by a guess.
type patches struct {
	repo, rng string
	m         map[string]string
}

func (p *patches) of(commit string) string {
	if p.m == nil {
		p.m = map[string]string{}
		_ = gitfacts.PatchIDs(p.repo, p.rng, func(c, pid string) error {
			p.m[c] = pid
			return nil
		})
	}
	return p.m[commit]
}

func recorded(l Line, r *rec, step int64, by string) Line {
	l.Status, l.By, l.Step = Recorded, by, &step
	l.RecordID, l.Session = r.out.Result.RecordID, r.session
	l.Level, l.Policy = r.out.Level, policyOf(r.out)
	l.Detail = fmt.Sprintf("made in session %s (record %s, step %d, level %s, policy %s)", r.session, l.RecordID, step, l.Level, l.Policy)
	if by == "patchId" {
		l.Detail += "; the record names the same change by its patch id (rebased, cherry-picked or amended without a change)"
	}
	return l
}

func refuse(l Line, code format.Code, detail string) Line {
	c := string(code)
	l.Status, l.Code, l.Detail = Refused, &c, detail
	l.Step = nil
	return l
}

// Human is l as one line of text.
func (l Line) Human() string {
	var b bytes.Buffer
	b.WriteString(l.Commit)
	switch l.Status {
	case Refused:
		fmt.Fprintf(&b, " REFUSED %s: %s", *l.Code, l.Detail)
	case Recorded:
		fmt.Fprintf(&b, " RECORDED %s", l.Detail)
	case Unbound:
		fmt.Fprintf(&b, " UNBOUND %s", l.Detail)
	default:
		fmt.Fprintf(&b, " UNKNOWN %s", l.Detail)
	}
	return verdict.Printable(b.String())
}

// Print runs Check and prints each line to w, as text or as one JSON
// object a line; a range of no commits says so in text.
func Print(o Options, asJSON bool, w io.Writer) (bool, error) {
	n := 0
	pass, err := Check(o, func(l Line) {
		n++
		if asJSON {
			b, _ := json.Marshal(l)
			fmt.Fprintf(w, "%s\n", b)
		} else {
			fmt.Fprintln(w, l.Human())
		}
	})
	if err == nil && !asJSON && n == 0 {
		fmt.Fprintln(w, "no commits in", o.Range)
	}
	return pass, err
}
