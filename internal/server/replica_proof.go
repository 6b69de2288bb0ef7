package server

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook/internal/dbstore"
)

// A record sealed on a replica is committed to the database before its
// leaf is sequenced and proved (replicaCommit, sealLeafLater): a replica
// killed in between leaves the record without a proof, and its working
// copy, the only place that knew, may never come back. So every replica
// completes such records from the database: all of them at its start,
// and in its periodic sweep those that were already without a proof at
// the sweep before (a record sealed a moment ago is its own replica's to
// prove). The leaf is sequenced again (the log keeps the first copy too,
// as a restart's queued checkpoints do) and proved, and the proof is set
// unless the record was sealed again since (dbstore.SetProof).

// proofSweep is the time between two sweeps; sweepLimit bounds the
// records one sweep takes (the rest wait for the next).
var proofSweep = time.Minute

const sweepLimit = 1000

// sweepProofs runs at start on a replica with a log: the first sweep
// before it returns (its provers are running), the next ones in the
// background until the server closes.
func (s *Server) sweepProofs() {
	if s.cfg.DB == nil || s.cfg.TLog == nil {
		return
	}
	seen := s.sweepOnce(nil)
	s.tl.sweeper.Go(func() {
		t := time.NewTicker(proofSweep)
		defer t.Stop()
		for {
			select {
			case <-s.tl.ctx.Done():
				return
			case <-t.C:
			}
			seen = s.sweepOnce(seen)
		}
	})
}

// sweepOnce proves the records without a proof that were in prev too,
// with the same leaf (every one when prev is nil), and returns the ones
// it found.
func (s *Server) sweepOnce(prev map[string]string) map[string]string {
	ctx, cancel := context.WithTimeout(s.tl.ctx, 30*time.Second)
	list, err := s.cfg.DB.UnprovedRecords(ctx, sweepLimit)
	cancel()
	if err != nil {
		if s.tl.ctx.Err() == nil {
			s.cfg.Log.Error("log proof sweep", "error", "database: "+err.Error())
		}
		return prev
	}
	next := make(map[string]string, len(list))
	for _, u := range list {
		next[u.ID] = string(u.Leaf)
		if leaf, ok := prev[u.ID]; prev == nil || ok && leaf == string(u.Leaf) {
			s.proveUnproved(u)
		}
	}
	return next
}

// proveUnproved sequences a record's leaf, proves it and sets the proof,
// unless this replica is proving it already: its own seal's prover (the
// pending index beside the same record checkpoint), or a sweep's still
// waiting (for witnesses that are down, say): one more leaf each sweep
// would grow the log for nothing.
func (s *Server) proveUnproved(u dbstore.Unproved) {
	if s.tl.ctx.Err() != nil {
		return
	}
	base := filepath.Join(s.cfg.Dir, u.ID)
	if cp, err := os.ReadFile(base + ".record.checkpoint"); err == nil && bytes.Equal(cp, u.Leaf) {
		if _, err := os.Stat(base + pendingSuffix); err == nil {
			return
		}
	}
	s.tl.sweepMu.Lock()
	if s.tl.rescuing == nil {
		s.tl.rescuing = map[string]bool{}
	}
	key := u.ID + "\x00" + string(u.Leaf)
	busy := s.tl.rescuing[key]
	s.tl.rescuing[key] = true
	s.tl.sweepMu.Unlock()
	if busy {
		return
	}
	s.tl.provers.Go(func() {
		defer func() {
			s.tl.sweepMu.Lock()
			delete(s.tl.rescuing, key)
			s.tl.sweepMu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(s.tl.ctx, 30*time.Second)
		idx, err := s.cfg.TLog.AddWait(ctx, u.Leaf)
		cancel()
		if err == nil {
			var proof []byte
			if proof, err = s.cfg.TLog.Prove(s.tl.ctx, idx, u.Leaf); err == nil {
				err = s.cfg.DB.SetProof(s.tl.ctx, u.ID, u.Leaf, proof)
			}
		}
		if err != nil {
			if s.tl.ctx.Err() == nil {
				s.cfg.Log.Error("log proof", "session", u.ID, "error", "completing a record sealed without its proof: "+err.Error())
			}
			return
		}
		s.cfg.Log.Info("log proof completed", "session", u.ID, "index", idx)
	})
}
