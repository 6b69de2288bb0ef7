package server

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/recorder"
)

// The transparency log (docs/log.md). Every session checkpoint the server
// signs is queued as one leaf, without making the hook wait: the session's
// own checkpoint log already holds it, and at start the server queues each
// session's latest checkpoint again, so a kill loses no session's state
// from the log (earlier checkpoints of a session are implied by its
// latest, whose tip chains them). At SessionEnd the final checkpoint's
// leaf is sequenced before the answer, its index kept in
// ID.record.tlog-pending; a background prover then writes
// ID.record.tlog-proof once a published (and, with witnesses, cosigned)
// log checkpoint covers it.

// Suffixes of the files beside a sealed record.
const (
	proofSuffix   = ".record.tlog-proof"
	pendingSuffix = ".record.tlog-pending"
)

// tlogState is the server's side of the log.
type tlogState struct {
	provers sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
}

func (s *Server) tlogInit() {
	s.tl.ctx, s.tl.stop = context.WithCancel(context.Background())
}

// logLeaf queues a checkpoint as a leaf; a pushback is retried in the
// background, a failure logged.
func (s *Server) logLeaf(note []byte) {
	if s.cfg.TLog == nil {
		return
	}
	fut := s.cfg.TLog.Add(s.tl.ctx, note)
	go func() {
		if _, err := fut(); err != nil {
			if _, err := s.cfg.TLog.AddWait(s.tl.ctx, note); err != nil && s.tl.ctx.Err() == nil {
				s.cfg.Log.Error("log append", "error", err.Error())
			}
		}
	}()
}

// sealLeaf sequences the final checkpoint's leaf, notes its index, and
// starts the prover. It returns once the index is durable.
func (s *Server) sealLeaf(session string, note []byte) error {
	if s.cfg.TLog == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(s.tl.ctx, 30*time.Second)
	defer cancel()
	idx, err := s.cfg.TLog.AddWait(ctx, note)
	if err != nil {
		return err
	}
	base := filepath.Join(s.cfg.Dir, session)
	if err := durable.WriteFileMode(base+pendingSuffix, []byte(strconv.FormatUint(idx, 10)+"\n"), 0o600); err != nil {
		return err
	}
	s.startProver(session, idx, note)
	return nil
}

func (s *Server) startProver(session string, idx uint64, leaf []byte) {
	s.tl.provers.Add(1)
	go func() {
		defer s.tl.provers.Done()
		base := filepath.Join(s.cfg.Dir, session)
		proof, err := s.cfg.TLog.Prove(s.tl.ctx, idx, leaf)
		if err != nil {
			if s.tl.ctx.Err() == nil {
				s.cfg.Log.Error("log proof", "session", session, "index", idx, "error", err.Error())
			}
			return
		}
		if err := durable.WriteFileMode(base+proofSuffix, proof, 0o600); err != nil {
			s.cfg.Log.Error("log proof", "session", session, "error", err.Error())
			return
		}
		os.Remove(base + pendingSuffix)
		s.cfg.Log.Debug("logged", "session", session, "index", idx)
	}()
}

// resumeLog runs at start: it queues each session's latest checkpoint
// again, and restarts the prover of every sealed session still waiting.
func (s *Server) resumeLog(session string, latest []byte) {
	if s.cfg.TLog == nil {
		return
	}
	base := filepath.Join(s.cfg.Dir, session)
	if _, err := os.Stat(base + proofSuffix); err == nil {
		return // sealed and proved: its final checkpoint is in the log
	}
	if latest != nil {
		s.logLeaf(latest)
	}
	b, err := os.ReadFile(base + pendingSuffix)
	if errors.Is(err, os.ErrNotExist) {
		// Sealed, but killed before its leaf was sequenced (the SessionEnd
		// was not answered): sequence it now.
		if leaf, err := os.ReadFile(base + ".record.checkpoint"); err == nil {
			if err := s.sealLeaf(session, leaf); err != nil {
				s.cfg.Log.Error("log append", "session", session, "error", err.Error())
			}
		}
		return
	}
	if err != nil {
		return
	}
	idx, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	leaf, err2 := os.ReadFile(base + ".record.checkpoint")
	if err != nil || err2 != nil {
		s.cfg.Log.Error("log proof", "session", session, "error", "unreadable pending index or record checkpoint")
		return
	}
	s.startProver(session, idx, leaf)
}

// WaitProofs waits (bounded by ctx) for the provers started so far.
func (s *Server) WaitProofs(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.tl.provers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) getProof(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := journal.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	b, err := os.ReadFile(filepath.Join(s.cfg.Dir, id+proofSuffix))
	if err != nil {
		s.fail(w, r, errNotLogged, "session "+id+" has no log proof yet (not sealed, or the log has not published a cosigned checkpoint covering it)")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

// logRoutes mounts the log's tiles read-only at /v1/log/.
func (s *Server) logRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/v1/sessions/{id}/tlog-proof", s.auth(s.method("GET", s.getProof)))
	if s.cfg.TLog != nil {
		// Behind the token like every route but /healthz and the page:
		// the tiles name every session, its size and its tip.
		logs := http.StripPrefix("/v1/log", s.cfg.TLog.Handler())
		mux.HandleFunc("/v1/log/", s.auth(logs.ServeHTTP))
	}
}

// closeLog stops the provers.
func (s *Server) closeLog() { s.tl.stop() }
