// Package gitstep turns git facts (internal/gitfacts) into a session's
// steps, and a sealed session's commit steps into the bindings that
// travel with the commits (git notes under refs/notes/logbook,
// docs/commits.md). Every step is a note in the recorder's reserved
// logbook.* namespace, which no hook payload can name: the format is
// unchanged (spec §4 already has the note kind), and a verifier that
// knows nothing of git reads such a record as before.
package gitstep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/sealmark"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/unsealed"
)

// The data.event of the steps this package writes.
const (
	// HeadEvent: the repository's state at a session's start or seal
	// (data.phase "start" or "seal").
	HeadEvent = "logbook.git"
	// CommitEvent: a commit made while the session was recording, by
	// the agent or by hand.
	CommitEvent = "logbook.commit"
)

// HeadStep is the note of h at phase ("start" or "seal").
func HeadStep(h gitfacts.Head, phase string) chain.Step {
	m := []strictjson.Member{
		{Key: "event", Value: strictjson.Str(HeadEvent)},
		{Key: "phase", Value: strictjson.Str(phase)},
		{Key: "commit", Value: strictjson.Str(h.Commit)},
		{Key: "branch", Value: strictjson.Str(h.Branch)},
		{Key: "dirty", Value: strictjson.Bool(h.Dirty)},
		{Key: "statusSha256", Value: strictjson.Str(h.StatusDigest)},
		{Key: "diffSha256", Value: strictjson.Str(h.DiffDigest)},
	}
	sum := "git at " + phase + ": " + short(h.Commit)
	if h.Branch != "" {
		sum += " on " + h.Branch
	}
	if h.Dirty {
		sum += ", tree dirty"
	}
	return chain.Step{Kind: "note", Summary: sum, Data: strictjson.Obj(m...)}
}

// CommitStep is the note naming commit c.
func CommitStep(c gitfacts.Commit) chain.Step {
	m := []strictjson.Member{
		{Key: "event", Value: strictjson.Str(CommitEvent)},
		{Key: "commit", Value: strictjson.Str(c.ID)},
		{Key: "tree", Value: strictjson.Str(c.Tree)},
		{Key: "parents", Value: strictjson.StrArr(append([]string{}, c.Parents...))},
		{Key: "patchId", Value: strictjson.Str(c.PatchID)},
	}
	return chain.Step{Kind: "note", Summary: "commit " + short(c.ID), Data: strictjson.Obj(m...)}
}

func short(id string) string {
	if id == "" {
		return "(no commit yet)"
	}
	return id[:min(12, len(id))]
}

// Append appends steps to session's journal in dir, stamped under its
// lock with now. The journal must exist: a commit is never the first
// event of a session.
func Append(dir, session string, steps []chain.Step, now func() string) error {
	if _, err := os.Stat(journalfile.Path(dir, session)); err != nil {
		return err
	}
	j, err := journalfile.Open(dir, session)
	if err != nil {
		return err
	}
	defer j.Close()
	_, err = j.AppendNow(journalfile.Header{Session: session}, steps, now)
	return err
}

// Recording lists the sessions of dir still recording: an in-progress
// file written since its record, seal's mark or unsealed-session notice
// (if any), and whose last step is not its end (a SessionEnd, or the
// state at a seal). A session whose end was lost stays listed until it
// is sealed; a commit made meanwhile is named in it too, which is the
// truth (it was made while that session was open).
func Recording(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.steps.jsonl"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".steps.jsonl")
		if journalfile.ValidSessionID(id) != nil {
			continue
		}
		// The stats first: a server's directory holds many sealed
		// sessions, and each commit asks (POST /v1/commits).
		if sealedSince(f, filepath.Join(dir, id+".record.json"), sealmark.Path(dir, id), unsealed.Path(dir, id)) || ended(f) {
			continue
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// sealedSince reports whether any of marks (a record, a seal's mark, an
// unsealed-session notice) is as new as the journal at path: a session
// that was sealed and has recorded nothing since. A journal written
// after its seal is recording again: Codex seals at every turn's end and
// goes on, and a resumed session goes on after its record.
func sealedSince(path string, marks ...string) bool {
	j, err := os.Stat(path)
	if err != nil {
		return true
	}
	for _, m := range marks {
		if st, err := os.Lstat(m); err == nil && !j.ModTime().After(st.ModTime()) {
			return true
		}
	}
	return false
}

// OnStart appends the repository's state at the session's start, when
// repo is inside a git work tree; elsewhere it does nothing.
func OnStart(dir, session, repo string, now func() string) error {
	h, err := gitfacts.ReadHead(repo)
	if errors.Is(err, gitfacts.ErrNotRepo) {
		return nil
	}
	if err != nil {
		return err
	}
	return Append(dir, session, []chain.Step{HeadStep(h, "start")}, now)
}

// OnCommit names repo's HEAD commit, just made, in every session of dir
// still recording (a post-commit hook runs it), and returns those
// sessions. A commit made with no session recording is named nowhere.
func OnCommit(dir, repo string, now func() string) ([]string, error) {
	ids, err := Recording(dir)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	c, err := gitfacts.ReadCommit(repo, "HEAD")
	if err != nil {
		return nil, err
	}
	var named []string
	var errs []error
	for _, id := range ids {
		if err := Append(dir, id, []chain.Step{CommitStep(c)}, now); err != nil {
			errs = append(errs, fmt.Errorf("session %s: %w", id, err))
			continue
		}
		named = append(named, id)
	}
	return named, errors.Join(errs...)
}

// ended reports whether the journal's last step ends the session: a
// SessionEnd (in any harness's words) or the state at a seal.
func ended(path string) bool {
	last, err := journalfile.LastLine(path)
	if err != nil {
		return false
	}
	v, err := strictjson.Parse(last, strictjson.Options{})
	if err != nil {
		return false
	}
	d := v.Get("data")
	if d == nil {
		return false
	}
	ev, _ := d.GetString("event")
	phase, _ := d.GetString("phase")
	canon, _ := kinds.Canonical(ev)
	return canon == "SessionEnd" || (ev == HeadEvent && phase == "seal")
}

// TrailerKey is the commit trailer naming the sessions recording when a
// commit was made (record-step trailer, the commit-msg hook).
const TrailerKey = "Logbook-Record"
