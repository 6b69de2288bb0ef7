package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/tombstone"
)

// Reindex rebuilds the index from the data directory (logbook-server
// --reindex): every session's journal folded as the feed folds it, a
// record without a journal from its steps, a tombstone as a tombstoned
// entry. Retention policies and holds are kept. It returns how many
// sessions it indexed. The server need not be stopped: the feed's
// next event of a session writes its entry again. level is the level
// the server records at ("logged" with a transparency log, else
// "server").
func Reindex(ctx context.Context, cfg Config, level string) (int, error) {
	if cfg.IndexWho == nil {
		// The journals carry each step's attested actor whether or not
		// this command was given --fleet: read it, or a fleet's
		// sessions fall into the default tenant with no developer.
		cfg.IndexWho = fleetWho
	}
	s := &Server{cfg: cfg}
	s.ix.level = level
	ents, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return 0, err
	}
	ids := map[string]bool{}
	for _, e := range ents {
		for _, suf := range []string{".steps.jsonl", ".record.json"} {
			if id, ok := strings.CutSuffix(e.Name(), suf); ok && e.Type().IsRegular() {
				ids[id] = true
			}
		}
	}
	if err := cfg.Index.Reset(ctx); err != nil {
		return 0, err
	}
	var batch []*index.Session
	n := 0
	flush := func() error {
		err := cfg.Index.Put(ctx, batch...)
		n += len(batch)
		batch = batch[:0]
		return err
	}
	for id := range ids {
		e, err := s.reindexOne(id)
		if err != nil {
			return n, fmt.Errorf("session %s: %w", id, err)
		}
		if e == nil {
			continue
		}
		if batch = append(batch, e); len(batch) == 500 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

func (s *Server) reindexOne(id string) (*index.Session, error) {
	if f, err := os.Open(filepath.Join(s.cfg.Dir, id+".steps.jsonl")); err == nil {
		defer f.Close()
		var fs feedSession
		if err := s.foldFrom(f, &fs); err != nil || fs.fold == nil {
			return nil, err
		}
		e := fs.fold.S
		e.Verdict = s.verdictOf(id)
		return &e, nil
	}
	rec, err := os.ReadFile(filepath.Join(s.cfg.Dir, id+".record.json"))
	if err != nil {
		return nil, err
	}
	v, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth})
	if err != nil {
		return nil, err
	}
	if tombstone.Is(v) {
		t, err := tombstone.Read(v)
		if err != nil {
			return nil, err
		}
		e := &index.Session{Tenant: t.Tenant, ID: t.Session, Developer: t.Developer, Steps: t.StepCount, Level: s.level(),
			Ended: true, Verdict: index.VerdictTombstoned, Tombstone: true}
		if ms, ok := index.ParseTime(t.StartedAt); ok {
			e.StartMS = ms
		}
		if ms, ok := index.ParseTime(t.EndedAt); ok {
			e.EndMS = ms
		}
		return e, nil
	}
	// A record with no journal beside it: its own steps.
	var h index.Header
	if ses := v.Get("session"); ses != nil {
		h.ID, _ = ses.GetString("id")
		h.Cwd, _ = ses.GetString("cwd")
		h.Harness, _ = ses.GetString("agent")
	}
	f := index.NewFold(h, "", "", "", s.level())
	who, named := s.who(), false
	if steps := v.Get("steps"); steps != nil {
		for i := range steps.Items {
			st := &steps.Items[i]
			if !named {
				if t, d, m, ok := who(st); ok {
					f.S.Tenant, f.S.Developer, f.S.Machine, named = t, d, m, true
				}
			}
			f.Add(index.StepOf(st))
		}
	}
	f.S.Verdict = index.VerdictSealed
	return &f.S, nil
}
