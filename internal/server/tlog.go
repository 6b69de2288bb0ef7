package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/tessera"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
)

// The transparency log (docs/log.md). Every session checkpoint the server
// signs is queued as one leaf, without making the hook wait: the session's
// own checkpoint log already holds it, and at start the server queues each
// session's latest checkpoint again, so a kill loses no session's state
// from the log (earlier checkpoints of a session are implied by its
// latest, whose tip chains them). At SessionEnd the final checkpoint's
// leaf is sequenced in the background, never in the hook's answer (a log
// whose witnesses are down, or whose storage is slow, must not slow the
// agent): its index is kept in ID.record.tlog-pending (a server killed
// before that sequences the record's checkpoint again at start), and a
// background prover then writes
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
	proofMu sync.Mutex // the pending index and the proof file of every session
	ctx     context.Context
	stop    context.CancelFunc

	// Leaves go from the hook to the log through a queue and one
	// forwarder goroutine: Tessera's Add blocks while its sequencer is
	// busy with the previous batch (fsyncs), and that must not happen
	// under a session's lock, in the hook's answer. One forwarder keeps
	// the order in which the sessions' locks queued them; one resolver
	// waits for their indexes in that order (not a goroutine per leaf).
	mu        sync.RWMutex // closed, and the sends on leaves
	closed    bool
	leaves    chan []byte
	closing   chan struct{} // closed by closeLog: the forwarder stops gathering
	forwarded sync.WaitGroup
	resolved  sync.WaitGroup
	sealing   sync.WaitGroup // sealLeafLater's goroutines
	sweeper   sync.WaitGroup // the replicas' sweep of unproved records (replica_proof.go)
	sweepMu   sync.Mutex
	rescuing  map[string]bool // the sweep's provers running: session and leaf
}

// leafQueue bounds the leaves waiting for Tessera's Add (about 40 MB of
// notes): past it, hooks wait, so memory stays bounded when the log's
// storage is slower than the appends for a long while.
const leafQueue = 1 << 16

// pendingLeaf is a leaf whose index Tessera has not given yet.
type pendingLeaf struct {
	leaf []byte
	fut  tessera.IndexFuture
}

func (s *Server) tlogInit() {
	s.tl.ctx, s.tl.stop = context.WithCancel(context.Background())
	if s.cfg.TLog == nil {
		return
	}
	s.tl.leaves = make(chan []byte, leafQueue)
	futs := make(chan pendingLeaf, leafQueue)
	s.tl.closing = make(chan struct{})
	s.tl.forwarded.Add(1)
	go func() {
		defer s.tl.forwarded.Done()
		defer close(futs)
		s.forwardLeaves(func(leaf []byte) { futs <- pendingLeaf{leaf, s.cfg.TLog.Add(s.tl.ctx, leaf)} })
	}()
	s.tl.resolved.Add(1)
	go func() {
		defer s.tl.resolved.Done()
		for p := range futs {
			if _, err := p.fut(); err != nil {
				// Pushback (the log is behind): add it again, waiting.
				if _, err := s.cfg.TLog.AddWait(s.tl.ctx, p.leaf); err != nil && s.tl.ctx.Err() == nil {
					s.cfg.Log.Error("log append", "error", err.Error())
				}
			}
		}
	}()
}

// leafGather is how long the forwarder lets leaves gather in the queue
// before it takes them: at a paced load (an event every millisecond or
// so, the server otherwise idle) a forwarder woken by every leaf cost a
// goroutine handoff, often a thread woken from sleep, per event; waking
// once per leafGather costs a few dozen a second. Tessera batches for
// longer (translog's batch age), so the leaves' indexes come no later
// than one batch after they would have.
const leafGather = 50 * time.Millisecond

// forwardLeaves hands the queued leaves to add, in their order, until
// the queue is closed: it waits for a leaf, takes it, then lets the
// next ones gather for leafGather (or until closeLog) before taking all
// that are queued, and waits again.
func (s *Server) forwardLeaves(add func([]byte)) {
	t := time.NewTimer(leafGather)
	t.Stop()
	for {
		leaf, ok := <-s.tl.leaves
		if !ok {
			return
		}
		add(leaf)
		t.Reset(leafGather)
		select {
		case <-t.C:
		case <-s.tl.closing:
			t.Stop()
		}
		for more := true; more; {
			select {
			case leaf, ok := <-s.tl.leaves:
				if !ok {
					return
				}
				add(leaf)
			default:
				more = false
			}
		}
	}
}

// logLeaf queues a checkpoint as a leaf without waiting for the log (it
// waits only when leafQueue leaves are queued already). The session's
// checkpoint file holds the note already; a leaf lost to a kill before
// it was sequenced is made good at start (resumeLog).
func (s *Server) logLeaf(note []byte) {
	if s.cfg.TLog == nil {
		return
	}
	s.tl.mu.RLock()
	defer s.tl.mu.RUnlock()
	if s.tl.closed {
		s.cfg.Log.Error("log append", "error", "the server is closing: leaf not queued (queued again at the next start)")
		return
	}
	s.tl.leaves <- note
}

// sealLeafLater runs sealLeaf in the background: the seal's answer does
// not wait for the log. A leaf not sequenced when the server stops is
// sequenced at the next start (resumeLog: a sealed record with neither a
// proof nor a pending index).
func (s *Server) sealLeafLater(session string, note []byte) {
	if s.cfg.TLog == nil {
		return
	}
	s.tl.mu.RLock()
	defer s.tl.mu.RUnlock()
	if s.tl.closed {
		s.cfg.Log.Error("log append", "session", session, "error", "the server is closing: the record's leaf is sequenced at the next start")
		return
	}
	s.tl.sealing.Go(func() {
		if err := s.sealLeaf(session, note); err != nil && s.tl.ctx.Err() == nil {
			s.cfg.Log.Error("log append", "session", session, "error", err.Error())
		}
	})
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
	// A reseal makes the proof of the previous record stale: the pending
	// index names the record's leaf, and a prover still running for an
	// older one writes nothing (startProver). Sequenced in the
	// background, an older seal's leaf may get its index after a newer
	// one's: only the leaf of the record's own checkpoint is noted.
	s.tl.proofMu.Lock()
	if cur, _ := os.ReadFile(base + ".record.checkpoint"); !bytes.Equal(cur, note) {
		s.tl.proofMu.Unlock()
		return nil
	}
	err = durable.WriteFileMode(base+pendingSuffix, []byte(strconv.FormatUint(idx, 10)+"\n"), 0o600)
	if err == nil {
		err = ignoreMissing(os.Remove(base + proofSuffix))
	}
	if err == nil {
		err = ignoreMissing(os.Remove(base + attestSuffix))
	}
	s.tl.proofMu.Unlock()
	if err != nil {
		return err
	}
	s.startProver(session, idx, note)
	return nil
}

func ignoreMissing(err error) error {
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

func (s *Server) startProver(session string, idx uint64, leaf []byte) {
	if s.tl.ctx.Err() != nil {
		return // closing: resumed at the next start (the pending index is kept)
	}
	s.tl.provers.Add(1)
	go func() {
		defer s.tl.provers.Done()
		proof, err := s.cfg.TLog.Prove(s.tl.ctx, idx, leaf)
		if err != nil {
			if s.tl.ctx.Err() == nil {
				s.cfg.Log.Error("log proof", "session", session, "index", idx, "error", err.Error())
			}
			return
		}
		if !s.writeProof(session, idx, proof) {
			return
		}
		if s.cfg.DB != nil {
			// Every replica serves it (replica.go).
			if err := s.cfg.DB.SetProof(s.tl.ctx, session, leaf, proof); err != nil {
				s.cfg.Log.Error("log proof", "session", session, "error", "database: "+err.Error())
			}
		}
		s.cfg.Log.Debug("logged", "session", session, "index", idx)
		s.attestLogged(session, proof)
	}()
}

// writeProof writes the session's proof unless it was resealed since the
// leaf at idx (the newer leaf's prover writes it then).
func (s *Server) writeProof(session string, idx uint64, proof []byte) bool {
	base := filepath.Join(s.cfg.Dir, session)
	s.tl.proofMu.Lock()
	defer s.tl.proofMu.Unlock()
	b, err := os.ReadFile(base + pendingSuffix)
	if err != nil || strings.TrimSpace(string(b)) != strconv.FormatUint(idx, 10) {
		return false
	}
	if err := durable.WriteFileMode(base+proofSuffix, proof, 0o600); err != nil {
		s.cfg.Log.Error("log proof", "session", session, "error", err.Error())
		return false
	}
	os.Remove(base + pendingSuffix)
	return true
}

// resumeLog runs at start: it queues each session's latest checkpoint
// again, and restarts the prover of every sealed session still waiting.
func (s *Server) resumeLog(session string, latest []byte) {
	if s.cfg.TLog == nil {
		return
	}
	base := filepath.Join(s.cfg.Dir, session)
	if _, err := os.Stat(base + proofSuffix); err == nil {
		// Sealed and proved: its final checkpoint is in the log, and
		// with it every earlier one. A session reopened since has later
		// checkpoints: the latest is queued.
		if cur, _ := os.ReadFile(base + ".record.checkpoint"); latest != nil && !bytes.Equal(cur, latest) {
			s.logLeaf(latest)
		}
		if _, err := os.Stat(base + attestSuffix); errors.Is(err, os.ErrNotExist) {
			// Killed between the proof and its attestation.
			if proof, err := os.ReadFile(base + proofSuffix); err == nil {
				s.attestLogged(session, proof)
			}
		}
		return
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

// WaitProofs waits (bounded by ctx) for the records sealed so far to
// have their leaves sequenced, and for the provers that starts. A seal's
// leaf is sequenced in the background (sealLeafLater) and only then is
// its prover started: waiting for the provers alone could return before
// the last seals' provers exist.
func (s *Server) WaitProofs(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.tl.sealing.Wait(); s.tl.provers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) getProof(w http.ResponseWriter, r *http.Request) {
	s.getLogged(w, r, proofSuffix, "text/plain; charset=utf-8")
}

// getAttestation serves the session's attestation bundle
// (ID.record.intoto.json), written with its proof of logging.
func (s *Server) getAttestation(w http.ResponseWriter, r *http.Request) {
	s.getLogged(w, r, attestSuffix, "application/json")
}

func (s *Server) getLogged(w http.ResponseWriter, r *http.Request, suffix, ctype string) {
	id := r.PathValue("id")
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	var b []byte
	var err error
	if s.cfg.DB != nil && suffix == proofSuffix {
		if b, err = s.cfg.DB.Proof(r.Context(), id); err == nil && b == nil {
			err = os.ErrNotExist
		}
	} else {
		b, err = os.ReadFile(filepath.Join(s.cfg.Dir, id+suffix))
	}
	if err != nil {
		s.fail(w, r, errNotLogged, "session "+id+" has no log proof yet (not sealed, or the log has not published a cosigned checkpoint covering it)")
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

// logRoutes mounts the log's tiles read-only at /v1/log/.
func (s *Server) logRoutes(mux *http.ServeMux) {
	mux.HandleFunc("/v1/sessions/{id}/tlog-proof", s.readAuth(s.method("GET", s.getProof)))
	mux.HandleFunc("/v1/sessions/{id}/attestation", s.readAuth(s.method("GET", s.getAttestation)))
	if s.cfg.TLog != nil {
		// Behind the token like every route but /healthz and the page:
		// the tiles name every session, its size and its tip.
		logs := http.StripPrefix("/v1/log", s.cfg.TLog.Handler())
		mux.HandleFunc("/v1/log/", s.readAuth(logs.ServeHTTP))
	}
}

// closeLog hands every queued leaf to Tessera and waits (at most
// closeWait) until each has its index: Tessera's own Close integrates and
// publishes only the leaves whose index was asked for. Then it stops the
// provers.
func (s *Server) closeLog() {
	if s.cfg.TLog != nil {
		s.tl.mu.Lock()
		if !s.tl.closed {
			s.tl.closed = true
			close(s.tl.closing)
			close(s.tl.leaves)
		}
		s.tl.mu.Unlock()
		done := make(chan struct{})
		go func() { s.tl.forwarded.Wait(); s.tl.resolved.Wait(); s.tl.sealing.Wait(); close(done) }()
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			s.cfg.Log.Error("log append", "error", "leaves still unsequenced at close (queued again at the next start)")
		}
	}
	s.tl.stop()
	s.tl.sweeper.Wait() // it starts no prover after this
	// The provers stop at once (their context is done); one writing a
	// proof finishes it. Close returns with nothing left writing in DATA.
	s.tl.provers.Wait()
}

// closeWait bounds how long Close waits for the queued leaves' indexes.
const closeWait = 30 * time.Second
