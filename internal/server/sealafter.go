package server

import (
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
)

// A resumed session's SessionEnd is answered once its step is recorded
// and checkpointed, and its seal runs after the answer (issue 32, item
// 11): the seal reads and signs the whole session, every step of every
// earlier resume, so that sealing it on the hook's path made a session's
// events slower at each resume (0.59× a fresh session's events/s at 15
// resumes, BenchmarkResumeMany). What the answer promises does not
// change: the step is in a signed checkpoint, as every event's is. A
// fresh session is sealed before its SessionEnd is answered, as before.
//
// Until the seal is written, every route that reads the session's record
// (GET …/record, …/record-checkpoint) and every event of the session seals
// it first, under the session's lock, so nothing reads or appends past a
// seal that is owed. The reopened marker goes before the answer: a server
// killed before the seal finds a sealed session whose record lags its
// checkpoints, and seals it at start (Resume); Close seals what is owed.

// owesSeal marks the session's seal owed, at its SessionEnd's time, and
// starts it. st.mu is held.
func (s *Server) owesSeal(id string, st *session, at string) error {
	if err := ignoreMissing(os.Remove(filepath.Join(s.cfg.Dir, id+reopenedSuffix))); err != nil {
		return err
	}
	if s.commit != nil {
		// The removal is durable before the answer: a power cut must not
		// bring the marker back and leave the ended session open.
		if err := durable.SyncPath(s.cfg.Dir); err != nil {
			return err
		}
	}
	st.sealed = true
	s.mu.Lock()
	s.owed[id] = at
	s.mu.Unlock()
	s.sealing.Go(func() {
		s.sealSlot <- struct{}{}
		defer func() { <-s.sealSlot }()
		s.payOwed(id)
	})
	return nil
}

// payOwed seals the session now if its seal is owed (journal does it),
// then closes it.
func (s *Server) payOwed(id string) {
	if !s.isOwed(id) {
		return
	}
	j, st, done, err := s.journal(id)
	if err != nil {
		s.cfg.Log.Error("seal", "session", id, "error", err.Error())
		return
	}
	if st.sealed && st.j == j {
		s.evict(id, st)
	}
	done()
}

func (s *Server) isOwed(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.owed[id]
	return ok
}

// takeOwed clears the session's owed seal and returns its time.
func (s *Server) takeOwed(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.owed[id]
	delete(s.owed, id)
	return at, ok
}
