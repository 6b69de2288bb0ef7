package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// The session index (docs/index.md): every recorded event puts its
// session on the feed's queue (indexLater, after the append, outside the
// session's lock); one goroutine reads what the session's journal gained
// since it last looked and writes the session's entry, the sessions of a
// batch in one transaction. Searches, coverage and retention are routes
// of their own (index_routes.go).

// The seams the fleet's identity fills (Config.IndexWho, Config.Enrolled,
// Config.Authorize): until it does, every session is the default
// tenant's ("") with no developer, no developer is enrolled, and the
// read token's holder is the tenant's auditor and admin.

// Who names a session's tenant, developer and machine from one of its
// steps (the authenticated actor the server wrote on it); ok is false
// when the step names none, and the next step is asked.
type Who func(step *strictjson.Value) (tenant, developer, machine string, ok bool)

func noWho(*strictjson.Value) (string, string, string, bool) { return "", "", "", false }

// indexFeed is the feed's state.
type indexFeed struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]struct{}
	busy    bool
	closed  bool
	stop    chan struct{} // closed by indexClose: no more waiting for a batch to fill
	now     chan struct{} // IndexFlush: the batch waiting to fill is taken now
	done    chan struct{}
	// folds: what the feed read of each session so far (its journal's
	// offset and the entry folded from it), so that an event costs the
	// bytes it added; dropped when the session is sealed or when there
	// are too many, and read again from the start the next time.
	folds map[string]*feedSession
	// level, when set, is the level entries name (Reindex, which opens
	// no transparency log, is told it).
	level string
}

type feedSession struct {
	off  int64
	fold *index.Fold
	who  bool // the tenant and developer were named
}

// feedWait is how long the feed lets a batch fill: how far the index may
// lag an event, beside what it saves. Each batch costs a transaction and
// an open and read of each of its sessions' journals: at 50 ms, flat out
// over 16 sessions (BenchmarkServerCPUFloor), that was a tenth of the
// server's CPU per event; at 1 s, the time the transparency log takes
// to publish a checkpoint, it is a few percent.
const feedWait = time.Second

// maxFolds bounds the sessions the feed keeps in memory.
const maxFolds = 4096

func (s *Server) indexInit() {
	if s.cfg.Index == nil {
		return
	}
	f := &s.ix
	f.cond = sync.NewCond(&f.mu)
	f.pending, f.folds, f.done, f.stop = map[string]struct{}{}, map[string]*feedSession{}, make(chan struct{}), make(chan struct{})
	f.now = make(chan struct{}, 1)
	go s.indexLoop()
}

// indexLater queues session id for the feed. It never waits on the
// database.
func (s *Server) indexLater(id string) {
	if s.cfg.Index == nil {
		return
	}
	f := &s.ix
	f.mu.Lock()
	if !f.closed {
		if _, ok := f.pending[id]; !ok {
			f.pending[strings.Clone(id)] = struct{}{}
		}
		f.cond.Signal()
	}
	f.mu.Unlock()
}

// IndexFlush waits until every session queued so far is in the index.
func (s *Server) IndexFlush() {
	if s.cfg.Index == nil {
		return
	}
	f := &s.ix
	f.mu.Lock()
	for len(f.pending) > 0 || f.busy {
		select {
		case f.now <- struct{}{}: // the batch filling is taken without waiting out feedWait
		default:
		}
		f.cond.Wait()
	}
	f.mu.Unlock()
}

// indexClose writes what is queued and stops the feed.
func (s *Server) indexClose() {
	if s.cfg.Index == nil {
		return
	}
	f := &s.ix
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	close(f.stop)
	f.cond.Broadcast()
	f.mu.Unlock()
	<-f.done
}

func (s *Server) indexLoop() {
	f := &s.ix
	defer close(f.done)
	for {
		f.mu.Lock()
		for len(f.pending) == 0 && !f.closed {
			f.cond.Wait()
		}
		if len(f.pending) == 0 {
			f.mu.Unlock()
			return
		}
		// The batch fills for feedWait first: the events that arrive
		// meanwhile, of the same sessions or others, share one read of
		// each journal and one transaction (an entry per event cost a
		// transaction per event: +52% of the server's CPU per event).
		f.busy = true
		f.mu.Unlock()
		select {
		case <-time.After(feedWait):
		case <-f.stop:
		case <-f.now:
		}
		f.mu.Lock()
		batch := f.pending
		f.pending, f.busy = map[string]struct{}{}, true
		f.mu.Unlock()

		var put []*index.Session
		for id := range batch {
			e, err := s.feedOne(id)
			if err != nil {
				s.cfg.Log.Error("index", "session", id, "error", err.Error())
				continue
			}
			if e == nil {
				continue
			}
			// One entry the columns cannot hold (an identity's tenant
			// too long) must not cost the batch its transaction.
			if err := e.Check(); err != nil {
				s.cfg.Log.Error("index", "session", id, "error", err.Error())
				continue
			}
			put = append(put, e)
		}
		if len(put) > 0 {
			if err := s.cfg.Index.Put(context.Background(), put...); err != nil {
				s.cfg.Log.Error("index", "sessions", len(put), "error", err.Error())
			}
		}
		f.mu.Lock()
		f.busy = false
		f.cond.Broadcast()
		f.mu.Unlock()
	}
}

// level is the level the server's sessions are recorded at (the commit
// binding's names): logged with a transparency log, else server.
func (s *Server) level() string {
	if s.ix.level != "" {
		return s.ix.level
	}
	if s.cfg.TLog != nil {
		return "logged"
	}
	return "server"
}

func (s *Server) who() Who {
	switch {
	case s.cfg.IndexWho != nil:
		return s.cfg.IndexWho
	case s.cfg.Fleet != nil:
		return fleetWho
	}
	return noWho
}

// feedOne folds what session id's journal gained since the feed last
// read it, and returns its entry (nil: no journal).
func (s *Server) feedOne(id string) (*index.Session, error) {
	f := &s.ix
	fs := f.folds[id]
	if fs == nil {
		if len(f.folds) >= maxFolds {
			clear(f.folds)
		}
		fs = &feedSession{}
		f.folds[id] = fs
	}
	file, err := os.Open(journalfile.Path(s.cfg.Dir, id))
	if errors.Is(err, os.ErrNotExist) {
		delete(f.folds, id)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if st, err := file.Stat(); err != nil {
		return nil, err
	} else if st.Size() < fs.off {
		*fs = feedSession{} // cut (a torn tail repaired): read again
	}
	if err := s.foldFrom(file, fs); err != nil {
		delete(f.folds, id)
		return nil, err
	}
	if fs.fold == nil {
		return nil, nil
	}
	e := fs.fold.S // a copy: the cache goes on folding
	e.Verdict = s.verdictOf(id)
	if e.Verdict == index.VerdictSealed && e.Ended {
		delete(f.folds, id) // finished: a late event reads it again
	}
	return &e, nil
}

// foldFrom reads file from fs.off to its last complete line into fs.
// Only whole lines count: an append in progress is read next time.
func (s *Server) foldFrom(file *os.File, fs *feedSession) error {
	if _, err := file.Seek(fs.off, io.SeekStart); err != nil {
		return err
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return err
	}
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return nil
	}
	who := s.who()
	for _, line := range bytes.Split(data[:end], []byte("\n")) {
		v, err := strictjson.Parse(line, strictjson.Options{MaxDepth: format.MaxDepth})
		if err != nil {
			return err
		}
		if fs.fold == nil {
			var h index.Header
			h.ID, _ = v.GetString("session")
			h.Cwd, _ = v.GetString("cwd")
			h.Harness, _ = v.GetString("harness")
			fs.fold = index.NewFold(h, "", "", "", s.level())
			continue
		}
		if !fs.who {
			if t, d, m, ok := who(v); ok {
				fs.fold.S.Tenant, fs.fold.S.Developer, fs.fold.S.Machine, fs.who = t, d, m, true
			}
		}
		fs.fold.Add(index.StepOf(v))
	}
	fs.off += int64(end) + 1
	return nil
}

// verdictOf: sealed when the session has a record and was not reopened
// since.
func (s *Server) verdictOf(id string) string {
	base := filepath.Join(s.cfg.Dir, id)
	if _, err := os.Stat(base + ".record.json"); err != nil {
		return index.VerdictOpen
	}
	if _, err := os.Stat(base + reopenedSuffix); err == nil {
		return index.VerdictOpen
	}
	return index.VerdictSealed
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
