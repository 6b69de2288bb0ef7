package server

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// errBadCommit: POST /v1/commits' body is not a commit's facts.
const errBadCommit = "COMMIT_INVALID" // 400

// postCommit is POST /v1/commits, which the post-commit hook of record-step
// install --server sends after every commit, the agent's and the
// person's: the commit's facts (ids only) and the work tree's top. The
// commit is named, as a logbook.commit note, in each session of this
// server still recording whose cwd is in that work tree; the answer names
// them ({"sessions":[…]}; none, with recording off). The server has no
// repository: the note that binds the commit is written where the
// repository is, from the sealed record (logbook-seal --from-server,
// docs/commits.md).
func (s *Server) postCommit(w http.ResponseWriter, r *http.Request) {
	body, code, detail := readBody(w, r, gitstep.MaxCommitBody)
	if code != "" {
		s.fail(w, r, code, detail)
		return
	}
	top, c, err := gitstep.ParseCommitBody(body)
	if err != nil {
		s.fail(w, r, errBadCommit, err.Error())
		return
	}
	if !s.acquire(w, r, s.slots) {
		return
	}
	defer func() { <-s.slots }()
	ids, err := s.recordingIn(r, top)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	named := []string{}
	for _, id := range ids {
		ok, err := s.nameCommit(id, c)
		if err != nil {
			s.cfg.Log.Error("commit", "session", id, "commit", c.ID, "error", err.Error())
			continue
		}
		if ok {
			named = append(named, id)
		}
	}
	s.cfg.Log.Debug("commit", "commit", c.ID, "sessions", strings.Join(named, ","))
	w.Header().Set("Content-Type", "application/json")
	w.Write(gitstep.NamedBody(named))
}

// postRecording is POST /v1/recording, the commit-msg hook's question before
// a commit (record-step install --trailer): which sessions of this
// server are recording in the work tree {"repo":TOP}; the answer is
// {"sessions":[…]}, and nothing is recorded.
func (s *Server) postRecording(w http.ResponseWriter, r *http.Request) {
	body, code, detail := readBody(w, r, gitstep.MaxCommitBody)
	if code != "" {
		s.fail(w, r, code, detail)
		return
	}
	top, err := gitstep.ParseRepoBody(body)
	if err != nil {
		s.fail(w, r, errBadCommit, err.Error())
		return
	}
	ids, err := s.recordingIn(r, top)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(gitstep.NamedBody(ids))
}

// recordingIn lists the sessions recording whose cwd is in the work tree
// top that r's principal may write into: on a fleet server a developer's
// commit is named in its own sessions only (fleet.Authorize, as an
// event's), never in another developer's recording in the same tree.
func (s *Server) recordingIn(r *http.Request, top string) ([]string, error) {
	ids, err := s.recording.in(s.cfg.Dir, top)
	if s.cfg.DB != nil {
		ids, err = s.replicaRecordingIn(r, top)
	}
	if err != nil || s.cfg.Fleet == nil {
		return ids, err
	}
	p, _ := PrincipalOf(r)
	mine := ids[:0]
	for _, id := range ids {
		o, err := s.SessionOwner(id)
		if err != nil {
			return nil, err
		}
		// A session nobody in the fleet owns (recorded before it, or
		// with the shared token) takes no one's events but the shared
		// token's (mayWrite), nor their commits.
		if o == (fleet.Owner{}) && p.By != fleet.ByToken {
			continue
		}
		if fleet.Authorize(p, fleet.Write, o) == nil {
			mine = append(mine, id)
		}
	}
	return mine, nil
}

// recordingSet is the sessions still recording, with their cwd: taken
// from the data directory once, at the first commit (gitstep.Recording:
// every session's journal and seal marks), then kept as events are
// recorded and seals written, so that a commit costs a look-up, not a
// read of a directory that holds every session the server ever sealed.
// An entry for a session sealed meanwhile is dropped when a commit finds
// it sealed (nameCommit).
type recordingSet struct {
	mu      sync.Mutex
	scanned bool
	cwd     map[string]string
}

// add notes that session id records (its cwd read once, from its
// journal's header).
func (r *recordingSet) add(dir, id string) {
	r.mu.Lock()
	_, ok := r.cwd[id]
	r.mu.Unlock()
	if ok {
		return
	}
	cwd := gitstep.HeaderCwd(dir, id)
	r.mu.Lock()
	if r.cwd == nil {
		r.cwd = map[string]string{}
	}
	r.cwd[strings.Clone(id)] = cwd
	r.mu.Unlock()
}

func (r *recordingSet) remove(id string) {
	r.mu.Lock()
	delete(r.cwd, id)
	r.mu.Unlock()
}

// in lists the sessions recording in the work tree top, reading the
// data directory the first time.
func (r *recordingSet) in(dir, top string) ([]string, error) {
	r.mu.Lock()
	scanned := r.scanned
	r.mu.Unlock()
	if !scanned {
		ids, err := gitstep.Recording(dir)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			r.add(dir, id)
		}
		r.mu.Lock()
		r.scanned = true
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	in := []string{}
	for id, cwd := range r.cwd {
		if within(top, cwd) {
			in = append(in, id)
		}
	}
	slices.Sort(in)
	return in, nil
}

// replicaRecordingIn is recordingIn's list on a replica: the sessions of
// every replica, from the database (a session's events may all have gone
// to another replica). Each is locked and brought up to date before its
// note is appended (nameCommit, as an event's turn), which skips one
// sealed since.
func (s *Server) replicaRecordingIn(r *http.Request, top string) ([]string, error) {
	open, err := s.cfg.DB.OpenSessions(r.Context())
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	in := []string{}
	for _, o := range open {
		if journalfile.ValidSessionID(o.ID) == nil && within(top, gitstep.LineCwd(o.Header)) {
			in = append(in, o.ID)
		}
	}
	slices.Sort(in)
	return in, nil
}

// nameCommit appends c's note to session id, checkpointed and synced as
// an event's step is (on a replica, committed with its turn), unless the
// session was sealed meanwhile.
func (s *Server) nameCommit(id string, c gitfacts.Commit) (bool, error) {
	j, st, done, err := s.journal(id)
	if err != nil {
		return false, err
	}
	if st.sealed {
		s.recording.remove(id)
		done()
		return false, nil
	}
	now := func() string { return instant.Format(s.cfg.Now()) }
	if _, err := j.AppendNow(journalfile.Header{Session: j.Session}, []chain.Step{gitstep.CommitStep(c)}, now); err != nil {
		done()
		return false, err
	}
	_, err = s.checkpoint(j, st)
	if err == nil && s.cfg.DB != nil {
		err = s.replicaCommit(j, st)
	}
	t := s.syncLater(id, st)
	done()
	if err != nil {
		return false, err
	}
	return true, t.Wait()
}

// within reports whether cwd is the work tree's top or below it.
func within(top, cwd string) bool {
	if cwd == "" {
		return false
	}
	rel, err := filepath.Rel(top, cwd)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
