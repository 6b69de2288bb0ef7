package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/translog"
)

// Replicas (Config.DB, logbook-server --db; docs/replicas.md). Several
// servers share one MariaDB/MySQL database for each session's journal,
// checkpoints, record and hook numbers. The data directory of each
// replica is its working copy, never the truth: the database is.
//
// An event's turn, on any replica: the session's row is locked in the
// database (SELECT … FOR UPDATE, dbstore.Lock), which every other
// replica's turn on that session waits for; the working copy is brought
// up to the row (the lines, the latest checkpoint, the record another
// replica committed); the event is appended through the recorder's own
// path, checkpointed and, at SessionEnd, sealed, into the working copy
// exactly as in file mode; then the lines and checkpoints it added are
// written to the database and COMMITted before the event is answered.
// The chain cannot fork: each turn starts from the last committed tip,
// under a lock only one replica holds, and a checkpoint of a size already
// signed is refused by the table's key. A replica killed in its turn
// never committed it: the database rolls the turn back when the
// connection drops, and its event was never acknowledged.

// replicaState is a session's place in the database, kept with its
// session while this process holds it open.
type replicaState struct {
	tx  *dbstore.Tx // the turn in progress, row locked; nil between turns
	row dbstore.Row // the row as the turn found it
	// known: the working copy holds the row as of ver, and the journal
	// file is bytes long (this process wrote or fetched it last).
	known      bool
	ver, bytes int64
	lines      int64
	recordSize int64
	// What the turn signed, and whether it sealed: committed with it,
	// and only then queued for the transparency log.
	notes    [][]byte
	sizes    []int64
	resealed bool
}

// replicaBegin starts a session's turn: its row locked, its working copy
// brought up to it. st.mu and the journal's local lock are held.
func (s *Server) replicaBegin(id string, st *session) error {
	// The wait for another replica's turn (or for a database that does
	// not answer) is bounded as the wait for an append slot is.
	lctx, cancel := context.WithTimeout(context.Background(), slotWait)
	tx, row, err := s.cfg.DB.Lock(lctx, id)
	cancel()
	ctx := context.Background()
	if err != nil {
		return fmt.Errorf("database: lock session %s: %w", id, err)
	}
	rep := &st.rep
	if row.Tombstoned {
		// Deleted under retention, on this replica or another: refused
		// as in file mode, and the working copy made the tombstone's.
		rec, _, err := tx.Record(ctx)
		tx.Rollback()
		rep.known = false
		if err == nil {
			st.j = nil // journal's done closes it
			err = s.tombstoneCopy(id, rec)
		}
		return errors.Join(errTombstoned, err)
	}
	rep.tx, rep.row, rep.notes, rep.sizes, rep.resealed = tx, row, nil, nil, false
	if rep.known && rep.ver == row.Ver {
		return nil // this process committed the session's last turn
	}
	if err := s.catchUp(ctx, id, st, tx, row); err != nil {
		rep.tx, rep.known = nil, false
		tx.Rollback()
		return fmt.Errorf("database: bring session %s up to date: %w", id, err)
	}
	rep.known, rep.ver, rep.bytes, rep.lines, rep.recordSize = true, row.Ver, row.Bytes, row.Lines, row.RecordSize
	return nil
}

// catchUp makes the working copy what the row says: the lines committed
// since this process last knew the session (all of them, when it did
// not, or when its copy may hold a turn that was not committed), the
// latest checkpoint, the record, the sealed state and the hook numbers.
func (s *Server) catchUp(ctx context.Context, id string, st *session, tx *dbstore.Tx, row dbstore.Row) error {
	path := journalfile.Path(s.cfg.Dir, id)
	rep := &st.rep
	from, flag := int64(0), os.O_WRONLY|os.O_CREATE|os.O_TRUNC
	if fi, err := os.Lstat(path); err == nil && rep.known && fi.Size() == rep.bytes && rep.lines <= row.Lines {
		from, flag = rep.lines, os.O_WRONLY|os.O_APPEND // only what other replicas added
	}
	lines, err := tx.Lines(ctx, from)
	if err != nil {
		return err
	}
	if int64(len(lines)) != row.Lines-from {
		return fmt.Errorf("the row counts %d journal lines, the table holds %d", row.Lines, from+int64(len(lines)))
	}
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	f, err := durable.OpenWrite(path, flag, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if row.Checkpoint != nil && !bytes.Equal(st.log.Latest(), row.Checkpoint) {
		if err := st.log.Append(bytes.Clone(row.Checkpoint)); err != nil {
			return err
		}
	}
	st.signed, st.sealed = row.Signed, row.Sealed
	// Events this replica refused since (refused, seq.go) are counted
	// on top of the row's: named with this event.
	refused := st.seq.refused
	st.seq = seqState{loaded: true}
	st.seq.parse(row.HookSeq)
	st.seq.refused += refused
	base := filepath.Join(s.cfg.Dir, id)
	if row.RecordSize == 0 {
		// No record committed: one in the working copy is a seal that
		// was not.
		for _, suf := range []string{".record.json", ".record.checkpoint", reopenedSuffix} {
			if err := ignoreMissing(os.Remove(base + suf)); err != nil {
				return err
			}
		}
		return nil
	}
	if !rep.known || rep.recordSize != row.RecordSize {
		rec, cp, err := tx.Record(ctx)
		if err != nil {
			return err
		}
		if err := os.WriteFile(base+".record.json", rec, 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(base+".record.checkpoint", cp, 0o600); err != nil {
			return err
		}
	}
	if row.Sealed {
		return ignoreMissing(os.Remove(base + reopenedSuffix))
	}
	return os.WriteFile(base+reopenedSuffix, []byte(strconv.FormatInt(row.RecordSize, 10)+"\n"), 0o600)
}

// replicaCommit writes the turn's lines, checkpoints and record to the
// database and commits; only then are its checkpoints queued for the
// transparency log. On error the turn is rolled back, and the working
// copy, which holds it, is fetched again at the session's next turn.
func (s *Server) replicaCommit(j *journalfile.Journal, st *session) error {
	rep := &st.rep
	tx := rep.tx
	rep.tx = nil
	fail := func(err error) error {
		tx.Rollback()
		rep.known = false
		return fmt.Errorf("database: %w", err)
	}
	path := journalfile.Path(s.cfg.Dir, j.Session)
	added, err := readFrom(path, rep.bytes)
	if err != nil {
		return fail(err)
	}
	lines := bytes.SplitAfter(added, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		if !bytes.HasSuffix(l, []byte("\n")) {
			return fail(errors.New("the journal ends in a torn line"))
		}
		lines[i] = l[:len(l)-1]
	}
	u := dbstore.Update{Lines: lines, Bytes: rep.bytes + int64(len(added)), Notes: rep.notes, Sizes: rep.sizes,
		Signed: st.signed, Sealed: st.sealed, HookSeq: st.seq.encode()}
	recordSize := rep.row.RecordSize
	if rep.resealed {
		base := filepath.Join(s.cfg.Dir, j.Session)
		if u.Record, err = os.ReadFile(base + ".record.json"); err != nil {
			return fail(err)
		}
		if u.RecordCP, err = os.ReadFile(base + ".record.checkpoint"); err != nil {
			return fail(err)
		}
		recordSize = st.signed
		u.RecordSize = recordSize
	}
	if err := tx.Commit(context.Background(), rep.row, u); err != nil {
		rep.known = false
		return fmt.Errorf("database: commit session %s: %w", j.Session, err)
	}
	rep.ver, rep.bytes, rep.lines, rep.recordSize = rep.row.Ver+1, u.Bytes, rep.row.Lines+int64(len(lines)), recordSize
	for _, n := range rep.notes {
		s.logLeaf(n)
	}
	if rep.resealed {
		s.sealLeafLater(j.Session, u.RecordCP)
	}
	rep.notes, rep.sizes, rep.resealed = nil, nil, false
	return nil
}

// replicaEnd ends a turn that was not committed (the event failed before
// its commit): rolled back, and the working copy fetched again next time.
func (s *Server) replicaEnd(st *session) {
	if st.rep.tx != nil {
		st.rep.tx.Rollback()
		st.rep.tx, st.rep.known = nil, false
		st.rep.notes, st.rep.sizes, st.rep.resealed = nil, nil, false
	}
}

// replicaTombstone is Tombstone with replicas: under the session's row
// lock, the record in the database is replaced by the tombstone and the
// journal's lines deleted, in one transaction (dbstore.Tx.Tombstone). An
// event on another replica waits for the lock: one that took it first
// changed the session, which is then no longer the one the index found
// due (index.ErrNotDue: skipped, judged again at the next run); one that
// comes after finds the row tombstoned and is refused (replicaBegin).
// Holds are asked for again under the lock, which a hold set on any
// replica takes too (hold): a hold set since the run began stops it.
// st.mu is held.
func (s *Server) replicaTombstone(e *index.Session, st *session, by, reason string) error {
	ctx := context.Background()
	lctx, cancel := context.WithTimeout(ctx, slotWait)
	tx, row, err := s.cfg.DB.Lock(lctx, e.ID)
	cancel()
	if err != nil {
		return fmt.Errorf("database: lock session %s: %w", e.ID, err)
	}
	defer tx.Rollback() // nothing after Tombstone's commit
	if row.Tombstoned {
		return nil // deleted already
	}
	// Due as the index saw it: sealed, nothing appended since, at the
	// size the index counted.
	if !row.Sealed || row.RecordSize == 0 || row.Signed != row.RecordSize || row.RecordSize != e.Steps {
		s.cfg.Log.Info("retention: the session changed since the index listed it; left for the next run", "session", e.ID,
			"indexedSteps", e.Steps, "signed", row.Signed, "sealed", row.Sealed)
		return index.ErrNotDue
	}
	if held, err := s.cfg.Index.IsHeld(ctx, e.Tenant, e.ID); err != nil || held {
		if err == nil {
			err = &index.HeldError{Tenant: e.Tenant, IDs: []string{e.ID}}
		}
		return err
	}
	rec, _, err := tx.Record(ctx)
	if err != nil {
		return fmt.Errorf("database: %w", err)
	}
	b, err := s.tombstoneOf(e, rec, by, reason)
	if err != nil {
		return err
	}
	if err := tx.Tombstone(ctx, b); err != nil {
		return fmt.Errorf("database: tombstone session %s: %w", e.ID, err)
	}
	st.rep.known = false
	if st.j != nil {
		st.j.Close()
		st.j = nil
	}
	// The working copy follows; the database is the truth, and another
	// replica's copy follows at its next turn on the session.
	if err := s.tombstoneCopy(e.ID, b); err != nil {
		s.cfg.Log.Error("tombstone: working copy", "session", e.ID, "error", err.Error())
	}
	s.cfg.Log.Info("tombstoned", "session", e.ID, "by", by, "reason", reason)
	return nil
}

// readFrom returns the bytes of the file at path from offset off on.
func readFrom(path string, off int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// replicaRead serves the read routes from the database, so that every
// replica answers alike whichever of them recorded the session: what
// ("checkpoint", "record" or "record-checkpoint") of session id.
func (s *Server) replicaRead(w http.ResponseWriter, r *http.Request, id, what string) {
	ctx := r.Context()
	if what == "checkpoint" {
		cp, err := s.cfg.DB.Checkpoint(ctx, id)
		if err != nil {
			s.fail(w, r, errInternal, "database: "+err.Error())
			return
		}
		if cp == nil {
			s.fail(w, r, errNoCheckpoint, "no checkpoint for session "+id)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write(cp)
		return
	}
	rec, cp, err := s.cfg.DB.Record(ctx, id)
	if err != nil {
		s.fail(w, r, errInternal, "database: "+err.Error())
		return
	}
	if rec == nil {
		s.fail(w, r, errNotSealed, "session "+id+" has no sealed record")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if what == "record-checkpoint" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(cp)
		return
	}
	w.Header().Set("X-Logbook-Checkpoint", base64.StdEncoding.EncodeToString(cp))
	w.Header().Set("Content-Type", "application/json")
	w.Write(rec)
}

// OpenDB opens the database replicas share (logbook-server --db),
// creating its tables when they are missing; nil for no DSN. The Server
// given it closes it.
func OpenDB(ctx context.Context, dsn string) (*dbstore.Store, error) {
	if dsn == "" {
		return nil, nil
	}
	return dbstore.Open(ctx, dsn)
}

// warnDB logs, at start, what of the database replicas share falls
// short of docs/replicas.md (its max_allowed_packet): a warning, since
// only the largest events are refused by it.
func warnDB(cfg Config) {
	if cfg.DB == nil {
		return
	}
	if w := dbstore.PacketWarning(cfg.DB.Packet()); w != "" {
		cfg.Log.Warn("database", "max_allowed_packet", cfg.DB.Packet(), "warning", w)
	}
}

// replicaFleet is the fleet of a replica on db: its credentials, codes
// and sessions' owners are the database's (dbstore.Fleet), whatever fl
// kept them in, so that every replica enrolls, authenticates and
// authorizes alike (docs/replicas.md). Without db, or without a fleet,
// fl as it is.
func replicaFleet(fl *Fleet, db *dbstore.Store) (*Fleet, error) {
	if fl == nil || db == nil {
		return fl, nil
	}
	shared, err := db.Fleet(context.Background())
	if err != nil {
		return nil, err
	}
	f := *fl
	f.Store, f.Owners = shared, shared
	return &f, nil
}

// ReplicaLog is the transparency log of a replica on database dbDSN,
// from --log (driver; logSet: given on the command line) and --log-dsn:
// the shared one, Tessera's MySQL tables on the same database unless
// another DSN is given, or none. A posix log per replica would be
// several logs under one origin.
func ReplicaLog(dbDSN, driver string, logSet bool, logDSN string) (string, string, error) {
	if !logSet {
		driver = translog.MySQL
	}
	if driver == translog.POSIX {
		return "", "", errors.New("--log posix with --db: each replica would keep a log of its own under one origin; use --log mysql (the default with --db) or --log none")
	}
	if driver == translog.MySQL && logDSN == "" {
		logDSN = dbDSN
	}
	return driver, logDSN, nil
}
