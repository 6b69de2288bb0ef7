package server

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
)

// Resume runs once at start, before the server takes requests: for every
// session in the data directory it cuts a torn tail (noted in the chain,
// as the recorder does) and, when the latest checkpoint does not cover the
// journal's tip (the server died between an append and its checkpoint),
// signs one that does. Every session then goes on where it stopped. It
// returns how many sessions it checkpointed anew.
func (s *Server) Resume() (int, error) {
	if s.cfg.DB != nil {
		// A replica's turns are committed whole or not at all
		// (replica.go); a seal's proof comes after (replica_proof.go).
		s.sweepProofs()
		return 0, nil
	}
	files, err := filepath.Glob(filepath.Join(s.cfg.Dir, "*.steps.jsonl"))
	if err != nil {
		return 0, err
	}
	// A checkpoint log without its journal (a power loss that kept one
	// file's name and not the other's) is resumed too: its checkpoints
	// are cut.
	logs, err := filepath.Glob(filepath.Join(s.cfg.Dir, "*.checkpoints"))
	if err != nil {
		return 0, err
	}
	seen := map[string]bool{}
	n := 0
	for _, f := range append(files, logs...) {
		id := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".steps.jsonl"), ".checkpoints")
		if journalfile.ValidSessionID(id) != nil || seen[id] {
			continue
		}
		seen[id] = true
		signed, err := s.resume(id)
		if err != nil {
			s.cfg.Log.Error("resume", "session", id, "error", err.Error())
			continue
		}
		if signed {
			n++
		}
	}
	return n, nil
}

func (s *Server) resume(id string) (_ bool, err error) {
	j, err := journalfile.Open(s.cfg.Dir, id)
	if err != nil {
		return false, err
	}
	defer j.Close()
	if s.wal != nil {
		j.Log = s.wal.Append // what Repair writes is synced by the log's fsync
	}
	st, err := s.locked(id)
	if err != nil {
		return false, err
	}
	defer st.mu.Unlock()
	// Checkpoints of steps a power loss took (never acknowledged: the
	// answer waits for both files' fsync) are cut before anything is
	// signed, or a new step at the same seq would get a second checkpoint
	// of the same size.
	if last, _, err := j.Tail(); err == nil {
		if n, err := st.log.CutAbove(last + 1); err != nil {
			return false, err
		} else if n > 0 {
			s.cfg.Log.Warn("resume", "session", id, "checkpoints cut", n, "reason", "they count steps the journal lost (a power loss)")
		}
	}
	if _, err := j.Repair(instant.Format(s.cfg.Now())); err != nil {
		return false, err
	}
	seq, hash, err := j.Tail()
	if err != nil || seq < 0 {
		return false, err
	}
	defer func() { s.resumeLog(id, st.log.Latest()) }()
	// What start repaired and signed is synced (and its checkpoints queued
	// for the log) before the server takes requests.
	defer func() {
		if serr := s.syncLater(id, st).Wait(); err == nil {
			err = serr
		}
	}()
	signed := false
	if latest := st.log.Latest(); latest != nil {
		text, _, _ := bytes.Cut(latest, []byte("\n\n"))
		c, err := checkpoint.Parse(append(text, '\n'))
		signed = err == nil && c.Size == seq+1 && c.Tip == hash
	}
	if !signed {
		if _, err := s.checkpoint(j, st); err != nil {
			return false, err
		}
	}
	// A sealed session whose record does not end at the latest checkpoint
	// (killed between a late event's append and its reseal) is sealed
	// again, so the served record and checkpoint agree.
	if st.sealed {
		cur, _ := os.ReadFile(filepath.Join(s.cfg.Dir, id+".record.checkpoint"))
		if !bytes.Equal(cur, st.log.Latest()) {
			if _, err := s.seal(j, st, instant.Format(s.cfg.Now())); err != nil {
				return !signed, err
			}
		}
	}
	return !signed, nil
}
