package server

import (
	"net/http"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
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
	ids, err := s.recordingIn(top)
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

// recording is POST /v1/recording, the commit-msg hook's question before
// a commit (record-step install --trailer): which sessions of this
// server are recording in the work tree {"repo":TOP}; the answer is
// {"sessions":[…]}, and nothing is recorded.
func (s *Server) recording(w http.ResponseWriter, r *http.Request) {
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
	ids, err := s.recordingIn(top)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(gitstep.NamedBody(ids))
}

// recordingIn lists the sessions recording whose cwd is in the work tree
// top.
func (s *Server) recordingIn(top string) ([]string, error) {
	ids, err := gitstep.Recording(s.cfg.Dir)
	if err != nil {
		return nil, err
	}
	in := []string{}
	for _, id := range ids {
		if within(top, gitstep.HeaderCwd(s.cfg.Dir, id)) {
			in = append(in, id)
		}
	}
	return in, nil
}

// nameCommit appends c's note to session id, checkpointed and synced as
// an event's step is, unless the session was sealed meanwhile.
func (s *Server) nameCommit(id string, c gitfacts.Commit) (bool, error) {
	j, st, done, err := s.journal(id)
	if err != nil {
		return false, err
	}
	if st.sealed {
		done()
		return false, nil
	}
	now := func() string { return instant.Format(s.cfg.Now()) }
	if _, err := j.AppendNow(journalfile.Header{Session: j.Session}, []chain.Step{gitstep.CommitStep(c)}, now); err != nil {
		done()
		return false, err
	}
	_, err = s.checkpoint(j, st)
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
