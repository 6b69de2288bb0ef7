package server

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy/gate"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
)

// slotWait is how long a hook request waits for a free slot before 503
// BUSY: well under the server's write timeout (60 s). A variable for the
// tests only.
var slotWait = 30 * time.Second

// hook records one payload. The answer to a recorded event is 200 with an
// empty body: Claude Code reads an HTTP hook's 2xx body as the hook's
// output, and text there would reach the model. Headers say what was
// recorded (X-Logbook-Session, X-Logbook-Size).
func (s *Server) hook(w http.ResponseWriter, r *http.Request) {
	var hint hookevent.Hint
	if h := r.PathValue("harness"); h != "" {
		if !slices.Contains(hookevent.Harnesses, h) {
			s.fail(w, r, errUnknownHarnes, fmt.Sprintf("%q: want one of %s", h, strings.Join(hookevent.Harnesses, ", ")))
			return
		}
		hint.Harness = h
	}
	if e := r.URL.Query().Get("event"); e != "" {
		if !plainName(e) {
			s.fail(w, r, errBadEvent, "event must be 1-64 letters, digits, '_' or '-'")
			return
		}
		hint.Event = e
	}
	unsent, err := unsentCount(r)
	if err != nil {
		s.fail(w, r, errBadUnsent, err.Error())
		return
	}
	seqNum, err := seqOf(r)
	if err != nil {
		s.fail(w, r, errBadSeq, err.Error())
		return
	}
	// A nonce asks for a signed answer (answer.go).
	nonce := r.Header.Get(hookpost.NonceHeader)
	if nonce != "" && !hookpost.ValidNonce(nonce) {
		s.fail(w, r, errBadNonce, fmt.Sprintf("%s must be %d lowercase hex digits", hookpost.NonceHeader, hookpost.NonceLen))
		return
	}
	// record-step --server asks for the command hook's answer (gate.go).
	relay := r.Header.Get(hookpost.AnswerHeader) == hookpost.AnswerCommand
	cwd := r.Header.Get("X-Logbook-Cwd")
	if strings.ContainsAny(cwd, "\r\n\x00") || len(cwd) > 4096 {
		s.fail(w, r, errBadCwd, "X-Logbook-Cwd must be one line of at most 4096 bytes")
		return
	}
	// The body is read before the request takes an append slot, so that
	// only appends hold slots: a slow client (a body trickling in until
	// the server's read deadline) cannot hold one for others. A large
	// body (or one of unknown length) first takes its length in bytes
	// from bigBytes, for as long as it is read and recorded: memory stays
	// bounded however many large payloads come at once (bigBodyBudget).
	// A small body needs none to be read; readBody grows its buffer only
	// as bytes arrive.
	if r.ContentLength < 0 || r.ContentLength > smallBody {
		n := s.cfg.MaxHookBody + 1 // of unknown length: the most it may be
		if r.ContentLength >= 0 {
			n = min(r.ContentLength, n) // over the limit: refused unread below
		}
		if !s.acquireBytes(w, r, n) {
			return
		}
		defer s.bigBytes.Release(n)
		if n > bigCollect {
			defer runtime.GC()
		}
	}
	body, code, detail := readBody(w, r, s.cfg.MaxHookBody)
	if code != "" {
		s.fail(w, r, code, detail)
		return
	}
	var bodySum [32]byte
	if nonce != "" {
		bodySum = sha256.Sum256(body) // as received: Gate.Wire may change body below
	}
	if !s.acquire(w, r, s.slots) {
		// Refused BUSY (or the client left): the event is lost, and its
		// session is told so (seq.go).
		s.refused(hookevent.SessionOf(body), seqNum)
		return
	}
	defer func() { <-s.slots }()
	start := time.Now()
	var size int64
	var sealErr error
	head := "-"               // the session's tip after the event, when known
	var synced durable.Ticket // the group commit's batch for this event
	// The time is taken under the session's lock, so at follows seq.
	now := func() string { return instant.Format(s.cfg.Now()) }
	var st *session // the session's state, locked while its journal is
	seen := false   // the event's number was taken by st.seq
	opts := recorder.Options{
		Hint: hint, Self: recorderSource{s.cfg.Recorder}, Rules: s.rules, RulesSet: true, Now: now,
		Journal: func(id string) (*journalfile.Journal, func(), error) {
			j, kept, done, err := s.journal(id)
			st = kept
			if err == nil && !st.seq.loaded { // Tip reads the journal's last line: once per session, not per event
				tip, _, _ := j.Tip()
				st.seq.load(s.cfg.Dir, id, tip >= 0)
			}
			return j, done, err
		},
		Then: func(j *journalfile.Journal, ev hookevent.Event) error {
			// What the server knows was lost (seq.go): the hook's count
			// going back, and events it refused since the last one.
			var lost []chain.Step
			// A reset seen on a refused event is pending already; either
			// way it stays pending until its note is written.
			if from, reset := st.seq.see(seqNum); reset && st.seq.reset[1] == 0 {
				st.seq.reset = [2]int64{from, seqNum}
			}
			if r := st.seq.reset; r[1] != 0 {
				lost = append(lost, resetNote(r[0], r[1], ev.Step.At))
			}
			seen = true
			if st.seq.refused > 0 {
				lost = append(lost, lostNote(st.seq.refused, "refused", ev.Step.At))
			}
			if len(lost) > 0 {
				if _, err := j.Append(journalfile.Header{Session: j.Session}, lost); err != nil {
					return err
				}
				st.seq.refused, st.seq.reset = 0, [2]int64{}
			}
			if s.cfg.ManagedSettings != "" {
				// The session's first event: say where its hooks came from.
				if seq, _, err := j.Tip(); err == nil && seq == 0 {
					if _, err := j.Append(journalfile.Header{Session: j.Session}, []chain.Step{hooksNote(s.cfg.ManagedSettings, ev.Step.At)}); err != nil {
						return err
					}
				}
			}
			if unsent > 0 {
				if _, err := j.Append(journalfile.Header{Session: j.Session}, []chain.Step{unsentNote(unsent, ev.Step.At)}); err != nil {
					return err
				}
			}
			var err error
			size, synced, sealErr, err = s.afterAppend(j, st, ev, ev.Step.At)
			if err == nil && s.cfg.DB != nil {
				err = s.replicaCommit(j, st) // answered only once committed
			}
			if err == nil && !st.sealed {
				s.recording.add(s.cfg.Dir, j.Session) // a commit may name it (commit.go)
			}
			if seq, h, terr := j.Tip(); err == nil && terr == nil && seq+1 == size {
				head = h // the tip the size counts to, for a signed answer
			}
			return err
		},
	}
	var gv *gate.Verdict
	body = s.cfg.Gate.Wire(body, &opts, &gv)
	s.fleetWire(r, &opts)
	s.holdCalls(w, r, &opts, &gv, cwd) // a held call waits for an approver (approvals.go)
	ev, err := recorder.Record(s.cfg.Dir, body, "", cwd, opts)
	if err == nil {
		s.indexLater(ev.Session)
	}
	// Group commit: the step is on disk before the answer (with
	// FsyncBackground: written, and synced in the background within the
	// window). The session's locks are released: other events of the
	// session, and of every other, append meanwhile and share the fsync.
	waitFrom := time.Now()
	syncErr := s.synced(synced, nonce != "")
	syncWait := time.Since(waitFrom)
	if err != nil && s.fleetRefused(w, r, err) {
		return
	}
	if err != nil && s.denied(w, hint, ev, gv, relay, err) {
		return
	}
	// A denied call is denied even when its steps could not be synced:
	// an error answer would let the harness run it.
	if err == nil && syncErr != nil && s.denied(w, hint, ev, gv, relay, syncErr) {
		return
	}
	if err != nil {
		var ref *recorder.Refusal
		isRef := errors.As(err, &ref)
		if !seen && (!isRef || ref.Reason == recorder.WriteFailed) {
			// A session's event the server could not write: counted in
			// that session, named with its next event (seq.go).
			s.refused(ev.Session, seqNum)
		}
		if errors.Is(err, errLowSpace) {
			s.fail(w, r, errDiskLow, err.Error())
			return
		}
		if isRef {
			s.fail(w, r, ref.Reason, ref.Err.Error())
			return
		}
		s.fail(w, r, recorder.WriteFailed, err.Error())
		return
	}
	if syncErr != nil {
		s.fail(w, r, errSyncFailed, fmt.Sprintf("event written (size %d) but not synced to disk: %v", size, syncErr))
		return
	}
	// A copy: ev.Session is a view into the body, and a keep-alive
	// connection holds its last answer's headers until its next request.
	w.Header().Set("X-Logbook-Session", strings.Clone(ev.Session))
	w.Header().Set("X-Logbook-Size", strconv.FormatInt(size, 10))
	if sealErr != nil {
		s.fail(w, r, errSealFailed, fmt.Sprintf("event recorded and checkpointed (size %d); seal failed: %v", size, sealErr))
		return
	}
	rp := replyFor(hint, ev, gv, relay)
	if nonce != "" {
		s.signAnswer(w, nonce, bodySum, ev.Session, size, head, rp.sum())
	}
	took := time.Since(start)
	w.Header().Set("Server-Timing", serverTiming(took, syncWait))
	s.write(w, ev, rp)
	if s.cfg.Log.Enabled(r.Context(), slog.LevelDebug) { // its arguments, boxed, cost 3-4 allocations per event
		s.cfg.Log.Debug("recorded", "session", ev.Session, "event", ev.Name, "size", size, "bytes", len(body), "took", took, "syncWait", syncWait)
	}
}

// serverTiming is the Server-Timing header (W3C) of a recorded event: the
// server's own time for it ("hook": from the append slot taken to the
// answer, without reading the body or writing the answer) and the part
// of that spent waiting on the group commit ("sync"), in ms. A client or
// a benchmark reads the server's time per event there, without the cost
// of a debug log line per event.
func serverTiming(took, syncWait time.Duration) string {
	ms := func(b []byte, d time.Duration) []byte {
		return strconv.AppendFloat(b, float64(d.Microseconds())/1000, 'f', 3, 64)
	}
	b := make([]byte, 0, 40)
	b = ms(append(b, "hook;dur="...), took)
	b = ms(append(b, ", sync;dur="...), syncWait)
	return string(b)
}

// synced waits for what the answer to an event needs of its fsync batch:
// the fsync itself (FsyncGroup), or no write older than the window left
// unsynced (FsyncBackground). A signed answer (signed: the request
// carried a nonce) states the session's size and tip after the event,
// and is given only once they are on disk, in both modes: a power loss
// must not leave a signed statement of a step the server then records
// differently.
func (s *Server) synced(t durable.Ticket, signed bool) error {
	if s.cfg.Fsync == FsyncBackground && !signed {
		return t.Written(s.cfg.FsyncWindow)
	}
	return t.Wait()
}

// smallBody is the largest body read without taking its length from
// the large-body budget (bigBodyBudget).
const smallBody = 1 << 20

// bigBodyBudget is how many bytes of large bodies may be in flight at
// once: twice the limit. Each is held once, its digest taken a piece at
// a time (jcs.Buffer's Spill), and collected when its request is done
// (bigCollect), so the memory they cost stays within 4 × the limit
// (measured: 8 bodies of 31 MiB sent at once, 82 MiB peak; 778 MiB
// before, when 4 were read at a time by appending to a growing buffer,
// copied whole to be hashed and left to the collector; docs/server.md).
func bigBodyBudget(limit int64) int64 { return 2 * (limit + 1) }

// bigCollect: a body over this many bytes is collected as soon as its
// request is done (runtime.GC, after the answer is written), rather than
// when the heap next reaches the collector's goal: logbook-server runs
// at GOGC=400 for the small events' sake (cmd/logbook-server), which let
// each body of tens of MB stay as garbage until the heap was five times
// what is live.
const bigCollect = 4 << 20

// acquireBytes takes n bytes of the large-body budget, waiting at most
// slotWait; it answers 503 BUSY (or nothing, to a client that went away)
// when it cannot.
func (s *Server) acquireBytes(w http.ResponseWriter, r *http.Request, n int64) bool {
	ctx, cancel := context.WithTimeout(r.Context(), slotWait)
	defer cancel()
	if err := s.bigBytes.Acquire(ctx, n); err != nil {
		if r.Context().Err() == nil {
			s.fail(w, r, errBusy, "too many large requests in progress")
		}
		return false
	}
	return true
}

// acquire takes a slot of sem, waiting at most slotWait; it answers 503
// BUSY (or nothing, to a client that went away) when it cannot.
func (s *Server) acquire(w http.ResponseWriter, r *http.Request, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}: // a slot free: no timer (one per event was an allocation and a timer to stop)
		return true
	default:
	}
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return true
	case <-t.C:
		s.fail(w, r, errBusy, "too many requests of this kind in progress")
	case <-r.Context().Done():
	}
	return false
}

// recorderSource names the server as session.recorder.
type recorderSource struct{ r *format.Recorder }

func (s recorderSource) Recorder() *format.Recorder { return s.r }

func plainName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// readBody reads the whole body within limit and the server's read
// deadline, naming what went wrong. A small body's buffer starts at most
// 64 KiB and grows as bytes arrive: a client that announces a length and
// sends nothing holds no memory. A big one (its length taken from the
// large-body budget) is read into one buffer of its announced length,
// or, of unknown length, in chunks copied once: growing one buffer by
// append left every outgrown copy to the collector, about four times the
// body.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, string, string) {
	if r.ContentLength > limit {
		return nil, errBodyTooLarge, fmt.Sprintf("%d bytes, the limit is %d", r.ContentLength, limit)
	}
	rd := http.MaxBytesReader(w, r.Body, limit)
	var buf []byte
	var err error
	switch n := r.ContentLength; {
	case n < 0:
		var over bool
		buf, over, err = bigbuf.ReadStreamLimit(rd, limit)
		if err == nil && over {
			err = &http.MaxBytesError{Limit: limit}
		}
	case n > smallBody:
		buf, err = readInto(rd, make([]byte, 0, n+1))
	default:
		buf, err = readInto(rd, make([]byte, 0, min(n, 64<<10)+1))
	}
	if err == nil {
		return buf, "", ""
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errBodyTooLarge, fmt.Sprintf("over the limit of %d bytes", limit)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return nil, errBodyTimeout, "the body did not arrive in time"
	default:
		return nil, errBodyCut, fmt.Sprintf("the body ended after %d bytes: %v", len(buf), err)
	}
}

// readInto reads r to its end, appending to b, which grows only when the
// body is longer than cap(b); on an error, b holds what came.
func readInto(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// afterAppend runs under the session's locks (st.mu and the journal's),
// right after the append: it signs a checkpoint of the new tip and
// appends it to the session's checkpoint log, and at SessionEnd seals. It
// returns the step count, the event's place in the fsync batch to wait
// for before the answer, the seal's error (the event is recorded either
// way), and an error that means the checkpoint was not written.
func (s *Server) afterAppend(j *journalfile.Journal, st *session, ev hookevent.Event, at string) (size int64, synced durable.Ticket, sealErr, err error) {
	// The event's place in the next fsync batch is taken under the lock,
	// after the checkpoint (and any seal): batches, and the leaves they
	// queue, keep the order of the appends.
	defer func() { synced = s.syncLater(j.Session, st) }()
	size, err = s.checkpoint(j, st)
	if err != nil {
		return size, synced, nil, err
	}
	// A SessionStart in a sealed session (`claude --resume` reusing the
	// id) reopens it: its events are recorded at a fresh session's cost,
	// and its next SessionEnd seals it again. The record sealed before
	// stays served, and verifiable with the checkpoint it was sealed with,
	// until then.
	if ev.Name == "SessionStart" && st.sealed {
		if err := s.reopen(j.Session, st); err == nil {
			return size, synced, nil, nil
		} else {
			s.cfg.Log.Error("reopen", "session", j.Session, "error", err.Error())
		}
	}
	// A SessionEnd seals; so does any other event that lands in a session
	// sealed and not reopened (a late hook): the served record and the
	// latest checkpoint must agree after every answered event, or the
	// record would be refused as TRUNCATED and the late step be in no
	// sealed record.
	if ev.Name != "SessionEnd" && !st.sealed {
		return size, synced, nil, nil
	}
	// Numbers the hook gave and the server never received: named in
	// the record this seal signs (seq.go).
	if n := st.seq.takeHoles(); n > 0 {
		if _, err := j.Append(journalfile.Header{Session: j.Session}, []chain.Step{lostNote(n, "sequenceHole", at)}); err != nil {
			return size, synced, err, nil
		}
	}
	if ev.Name == "SessionEnd" && !st.sealed && s.sealedBefore(j.Session) && s.cfg.DB == nil {
		// A resumed session: sealed after the answer (sealafter.go).
		if err := s.owesSeal(j.Session, st, at); err != nil {
			return size, synced, err, nil
		}
		s.evict(j.Session, st)
		return size, synced, nil, nil
	}
	size, err = s.seal(j, st, at)
	if err == nil {
		st.sealed = true
		if ev.Name == "SessionEnd" {
			s.evict(j.Session, st)
		}
	}
	return size, synced, err, nil
}

// syncLater puts the write-ahead log, which holds the session's appends
// (wal.go), and, the first time, the data directory (the session's files
// may be new, and their names must be durable too) in the next fsync
// batch, and the checkpoints signed since the last call in the
// transparency log's queue once that batch is synced. With FsyncOff it
// returns a ticket that does not wait (the checkpoints were queued as
// signed). st.mu is held.
//
// The checkpoint log is not synced: what must survive is the steps. A
// power cut that takes checkpoints whose steps the journal kept (or got
// back from the log at start) leaves a tip that Resume signs again, at
// the same size over the same step (the same statement, a later time);
// one that keeps checkpoints whose steps were lost (never acknowledged)
// has them cut at start (checkpoint.Log.CutAbove), after the log's
// replay. Syncing the steps alone keeps one file in every batch.
func (s *Server) syncLater(id string, st *session) durable.Ticket {
	if s.commit == nil {
		return durable.Ticket{}
	}
	var paths []string
	if !st.dirSynced {
		paths = append(paths, s.cfg.Dir)
		st.dirSynced = true
	}
	var after func()
	if notes := st.unlogged; len(notes) > 0 {
		st.unlogged = nil
		after = func() {
			for _, n := range notes {
				s.logLeaf(n)
			}
		}
	}
	return s.commit.AddSync(after, s.wal, paths...)
}

// reopenedSuffix names the marker of a sealed session reopened by a
// SessionStart: it holds the size of the record sealed before, and goes
// when the session is sealed again. Without it, a restarted server would
// take the session for a sealed one and reseal it at every event.
const reopenedSuffix = ".reopened"

// reopen marks a sealed session open again. The record sealed before
// stays in place (served, with the checkpoint it was sealed with) until
// the next seal replaces it: the new record covers it (same chain, more
// steps), and every checkpoint stays in DIR/ID.checkpoints, so no copy of
// it is kept (a session resumed 15 times held 8.5 times its latest
// record on disk when each was kept). st.mu is held.
func (s *Server) reopen(id string, st *session) error {
	base := filepath.Join(s.cfg.Dir, id)
	cp, err := os.ReadFile(base + ".record.checkpoint")
	if err != nil {
		return err
	}
	text, _, _ := bytes.Cut(cp, []byte("\n\n"))
	c, err := checkpoint.Parse(append(text, '\n'))
	if err != nil {
		return fmt.Errorf("%s.record.checkpoint: %w", id, err)
	}
	n := strconv.FormatInt(c.Size, 10)
	// Only the marker's name matters (its size is for a reader): it is
	// made durable with this event's fsync batch, which syncs the
	// directory (syncLater), not by fsyncs of its own, which made a
	// resumed SessionStart 5-15 ms slower than a fresh one on a busy disk.
	if err := durable.RefuseNonRegular(base + reopenedSuffix); err != nil {
		return err
	}
	if err := os.WriteFile(base+reopenedSuffix, []byte(n+"\n"), 0o600); err != nil {
		return err
	}
	st.dirSynced = false
	st.sealed = false
	s.cfg.Log.Info("reopened", "session", id, "sealed", c.Size)
	return nil
}

// sealedBefore reports whether the session has a record (it was sealed,
// and reopened since).
func (s *Server) sealedBefore(id string) bool {
	_, err := os.Stat(filepath.Join(s.cfg.Dir, id+".record.json"))
	return err == nil
}

// refused counts an event of session id that the server could not
// record (a failed write, BUSY), so that the session's next recorded
// event names it (seq.go). A session with no journal yet has nothing to
// count in: its refusal is logged, and its later numbers show the hole.
func (s *Server) refused(id string, seq int64) {
	if journalfile.ValidSessionID(id) != nil || isNew(journalfile.Path(s.cfg.Dir, id)) {
		return
	}
	st, err := s.locked(id)
	if err != nil {
		return
	}
	defer st.mu.Unlock()
	if !st.seq.loaded {
		tip := int64(0)
		if j := st.j; j != nil {
			tip, _, _ = j.Tip()
		}
		st.seq.load(s.cfg.Dir, id, tip >= 0)
	}
	if from, reset := st.seq.see(seq); reset && st.seq.reset[1] == 0 { // not a hole: counted here
		st.seq.reset = [2]int64{from, seq}
	}
	st.seq.refused++
}

// locked returns the session's state with its mutex held and its log
// open (a session evicted at its seal and resumed since is opened again).
func (s *Server) locked(id string) (*session, error) {
	for {
		st, err := s.session(id)
		if err != nil {
			return nil, err
		}
		st.mu.Lock()
		if st.log != nil {
			return st, nil
		}
		st.mu.Unlock() // evicted meanwhile: take the new one
	}
}

// evict closes a sealed session's log and forgets it, so that a server
// that has recorded many sessions holds no file open for the finished
// ones. st.mu is held, and with it the session's journal, which the
// holder closes when done (journal).
func (s *Server) evict(id string, st *session) {
	s.mu.Lock()
	if s.sessions[id] == st {
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	if err := st.seq.save(s.cfg.Dir, id); err != nil {
		s.cfg.Log.Error("evict", "session", id, "error", err.Error())
	}
	st.log.Close()
	st.log, st.j = nil, nil
}

// journal returns the session's journal locked, and the session's state
// with st.mu held: the server keeps each session's Journal open between
// its events (journal's keep.go), as it keeps its checkpoint log, and
// closes both together (evict, shed, Close). done releases the journal's
// lock, then st.mu. The order is always st.mu, then the journal's lock.
func (s *Server) journal(id string) (j *journalfile.Journal, st *session, done func(), err error) {
	if err := journalfile.ValidSessionID(id); err != nil {
		return nil, nil, nil, err
	}
	// The id is a view into the request's body (strictjson parses without
	// copying): kept as the sessions' map key and in the journal, it kept
	// the whole body alive for as long as the session stayed open, 31 MiB
	// for each session whose first event was that large.
	id = strings.Clone(id)
	if st, err = s.locked(id); err != nil {
		return nil, nil, nil, err
	}
	if st.j == nil {
		if isNew(journalfile.Path(s.cfg.Dir, id)) {
			if err := cmp.Or(s.notTombstoned(id), s.roomForNew()); err != nil {
				st.mu.Unlock()
				s.cfg.Log.Error("new session refused", "session", id, "error", err.Error())
				return nil, nil, nil, err
			}
		}
		if st.j, err = journalfile.Open(s.cfg.Dir, id); err != nil {
			st.mu.Unlock()
			return nil, nil, nil, err
		}
		if s.wal != nil {
			st.j.Log = s.wal.Append
		}
	} else if err := st.j.Lock(); err != nil {
		st.j.Close()
		st.j = nil
		st.mu.Unlock()
		return nil, nil, nil, err
	}
	j = st.j
	done = func() {
		s.replicaEnd(st)
		// Evicted meanwhile (sealed), or the lock cannot be released:
		// closed, which releases it.
		if st.j != j || j.Unlock() != nil {
			j.Close()
			if st.j == j {
				st.j = nil
			}
		}
		st.mu.Unlock()
	}
	// A replica's turn: the session locked in the database and the
	// working copy brought up to it (replica.go).
	if s.cfg.DB != nil {
		if err := s.replicaBegin(id, st); err != nil {
			done()
			return nil, nil, nil, err
		}
	}
	// A seal owed since the session's SessionEnd comes before anything
	// else is appended or read (sealafter.go).
	if at, ok := s.takeOwed(id); ok {
		if _, err := s.seal(j, st, at); err != nil {
			s.cfg.Log.Error("seal", "session", id, "error", err.Error())
		}
	}
	return j, st, done, nil
}

// session returns the session's state, opening its checkpoint log the
// first time. id has passed journalfile.ValidSessionID.
func (s *Server) session(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used++
	if st := s.sessions[id]; st != nil {
		st.used = s.used
		return st, nil
	}
	if len(s.sessions) >= maxOpenLogs {
		s.shed()
	}
	l, err := checkpoint.OpenLog(s.cfg.Dir, id)
	if err != nil {
		return nil, err
	}
	// A record on disk means the session was sealed (by this process or
	// an earlier one): what comes next reseals it, unless a SessionStart
	// reopened it since.
	base := filepath.Join(s.cfg.Dir, id)
	_, err = os.Stat(base + ".record.json")
	_, rerr := os.Stat(base + reopenedSuffix)
	st := &session{log: l, used: s.used, sealed: err == nil && rerr != nil}
	s.sessions[id] = st
	return st, nil
}

// maxOpenLogs bounds the sessions held open at once, each with three
// files (its checkpoint log, its journal and the journal's lock). Without
// it, every session that never sends SessionEnd, every sealed session
// whose checkpoint is fetched, and every session resumed at start would
// keep files open for the life of the process, until opens fail with
// EMFILE and no event can be recorded.
var maxOpenLogs = 256

// shed closes the least recently used half of the open logs whose session
// is not in use (the others are left to the next shed). s.mu is held; a
// session's lock is only tried, never waited for, so the lock order of
// evict (session, then s.mu) cannot deadlock with it. A shed session is
// opened again by the next locked.
func (s *Server) shed() {
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int { return cmp.Compare(s.sessions[a].used, s.sessions[b].used) })
	for _, id := range ids {
		if len(s.sessions) < maxOpenLogs/2 {
			return
		}
		st := s.sessions[id]
		if !st.mu.TryLock() {
			continue
		}
		if err := st.seq.save(s.cfg.Dir, id); err != nil {
			s.cfg.Log.Error("shed", "session", id, "error", err.Error())
		}
		if st.log != nil {
			st.log.Close()
			st.log = nil
		}
		if st.j != nil {
			st.j.Close()
			st.j = nil
		}
		delete(s.sessions, id)
		st.mu.Unlock()
	}
}

// checkpoint signs the journal's current tip and appends it to the log.
func (s *Server) checkpoint(j *journalfile.Journal, st *session) (int64, error) {
	seq, hash, err := j.Tip()
	if err != nil {
		return 0, err
	}
	if seq < 0 {
		return 0, nil // a header and no step: nothing to sign
	}
	if seq+1 == st.signed {
		return st.signed, nil // signed already (a seal that added no step)
	}
	note, err := s.signer.Sign(checkpoint.Checkpoint{Session: j.Session, Size: seq + 1, Tip: hash,
		Time: instant.Format(s.cfg.Now()), Redact: s.redactDigest})
	if err != nil {
		return 0, err
	}
	if err := st.log.Append(note); err != nil {
		return 0, fmt.Errorf("checkpoint log: %w", err)
	}
	st.signed = seq + 1
	if s.cfg.DB != nil {
		// Committed with the turn, and logged only then (replica.go).
		st.rep.notes, st.rep.sizes = append(st.rep.notes, note), append(st.rep.sizes, seq+1)
	} else if s.commit != nil && s.cfg.TLog != nil {
		st.unlogged = append(st.unlogged, note) // queued once synced (syncLater)
	} else {
		s.logLeaf(note)
	}
	return seq + 1, nil
}

// seal signs the session's record with the server's key, checkpoints the
// final tip (the seal may add a note naming unfinished tool calls), and
// writes DIR/ID.record.json and beside it DIR/ID.record.checkpoint, the
// final checkpoint, which a verifier checks the record against.
func (s *Server) seal(j *journalfile.Journal, st *session, at string) (int64, error) {
	res, err := seal.Seal(j, s.cfg.Key, seal.Options{Now: at, Redactor: s.rules})
	if err != nil {
		return 0, err
	}
	size, err := s.checkpoint(j, st)
	if err != nil {
		return 0, err
	}
	// A reseal replaces the record: the server is its only writer, each
	// record covers the one before (same chain, more steps), and every
	// earlier checkpoint stays in DIR/ID.checkpoints.
	base := filepath.Join(s.cfg.Dir, j.Session)
	// The steps and checkpoints the record covers are synced before it
	// is written: after a power cut, a durable record whose steps the
	// journal lost would be followed by other steps at the same seq,
	// under checkpoints of the same size.
	if err := s.syncLater(j.Session, st).Wait(); err != nil {
		return size, err
	}
	// The reopened marker goes first: killed before the record is
	// written, the server finds a sealed session whose record lags its
	// checkpoints, and seals it again at start (Resume). The record's
	// write syncs the directory, and with it this removal.
	if err := ignoreMissing(os.Remove(base + reopenedSuffix)); err != nil {
		return size, err
	}
	if err := durable.WriteFileMode(base+".record.json", res.Record, 0o600); err != nil {
		return size, err
	}
	if err := durable.WriteFileMode(base+".record.checkpoint", st.log.Latest(), 0o600); err != nil {
		return size, err
	}
	if s.cfg.DB != nil {
		st.rep.resealed = true // committed, then logged (replica.go)
	} else {
		s.sealLeafLater(j.Session, st.log.Latest())
	}
	s.recording.remove(j.Session)
	s.cfg.Log.Info("sealed", "session", j.Session, "steps", res.Steps, "unfinished", len(res.Unfinished))
	return size, nil
}

func (s *Server) getCheckpoint(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	if s.cfg.DB != nil {
		s.replicaRead(w, r, id, "checkpoint")
		return
	}
	if _, err := os.Stat(checkpoint.LogPath(s.cfg.Dir, id)); err != nil {
		s.fail(w, r, errNoCheckpoint, "no checkpoint for session "+id)
		return
	}
	st, err := s.locked(id)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	note := st.log.Latest()
	st.mu.Unlock()
	if note == nil {
		s.fail(w, r, errNoCheckpoint, "no checkpoint for session "+id)
		return
	}
	// With group commit only a checkpoint whose steps are on disk is
	// served: one whose step a power cut could take would later stand
	// beside another of the same size over a different step.
	if s.commit != nil {
		if err := s.commit.AddSync(nil, s.wal).Wait(); err != nil {
			s.fail(w, r, errSyncFailed, err.Error())
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(note)
}

// getRecordCheckpoint serves the checkpoint the served record was sealed
// with: while a reopened session runs, the latest checkpoint counts more
// steps than that record holds (and a verifier given both says
// TRUNCATED: the session went on), and this one verifies it.
func (s *Server) getRecordCheckpoint(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	if s.cfg.DB != nil {
		s.replicaRead(w, r, id, "record-checkpoint")
		return
	}
	s.payOwed(id)
	b, err := os.ReadFile(filepath.Join(s.cfg.Dir, id+".record.checkpoint"))
	if err != nil {
		s.fail(w, r, errNotSealed, "session "+id+" has no sealed record")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

func (s *Server) getRecord(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := journalfile.ValidSessionID(id); err != nil {
		s.fail(w, r, recorder.SessionInvalid, err.Error())
		return
	}
	if s.cfg.DB != nil {
		s.replicaRead(w, r, id, "record")
		return
	}
	s.payOwed(id)
	base := filepath.Join(s.cfg.Dir, id)
	if _, err := os.Stat(base + ".record.json"); err != nil {
		s.fail(w, r, errNotSealed, "session "+id+" has no sealed record")
		return
	}
	// The record and its own checkpoint are read under the session's
	// lock, which every reseal holds while it writes both: the pair is
	// always one seal's. A reader that fetched the record and then the
	// latest checkpoint could get a checkpoint of a later event, and a
	// false TRUNCATED; X-Logbook-Checkpoint gives it the matching one.
	st, err := s.locked(id)
	if err != nil {
		s.fail(w, r, errInternal, err.Error())
		return
	}
	b, err := os.ReadFile(base + ".record.json")
	cp, cpErr := os.ReadFile(base + ".record.checkpoint")
	st.mu.Unlock()
	if err != nil {
		s.fail(w, r, errNotSealed, "session "+id+" has no sealed record")
		return
	}
	if cpErr == nil {
		w.Header().Set("X-Logbook-Checkpoint", base64.StdEncoding.EncodeToString(cp))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}
