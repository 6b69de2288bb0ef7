// Package index is logbook-server's session index: one row per session
// (its tenant, developer, machine, repository, commits, harness, start and
// end, step count, level, policy digest, gate decisions, tools used and
// verdict), kept in embedded SQLite (one server) or MariaDB/MySQL (a
// fleet), searched a page at a time (Search), asked which developers and
// sessions went quiet (Coverage), and pruned by a tenant's retention
// policy under legal holds (Retain). The records stay the truth: the
// index only finds them, and Reindex rebuilds it from the journals and
// records. Time and I/O are arguments (docs/index.md).
package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql" // the fleet's engine, as internal/translog's log
	_ "modernc.org/sqlite"           // embedded, pure Go: cross-compiles with CGO_ENABLED=0 (docs/index.md)
)

type engine int

// The engines.
const (
	SQLite engine = iota
	MySQL
)

// Index is an open index. It is safe for concurrent use.
type Index struct {
	db *sql.DB
	e  engine
}

// Open opens (creating its tables) the index at dsn: for "sqlite" a file
// path, for "mysql" a go-sql-driver DSN.
func Open(ctx context.Context, driver, dsn string) (*Index, error) {
	var x Index
	switch driver {
	case "sqlite":
		x.e = SQLite
		// WAL: searches read while the feed writes. busy_timeout: the
		// command line (reindex, retention) may write while a server
		// runs. synchronous NORMAL: the index is rebuilt from the
		// journals, so a power cut may take its last writes.
		dsn = "file:" + dsn + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	case "mysql":
		x.e = MySQL
	default:
		return nil, fmt.Errorf("index driver %q: want sqlite or mysql", driver)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	ix, err := OpenDB(ctx, db, x.e == MySQL)
	if err != nil {
		db.Close()
	}
	return ix, err
}

// OpenDB is Open on a database already open (a MySQL pool a server
// shares, or SQLite through another driver: docs/index.md's driver
// measurement), mysql saying which engine it is. Close closes db.
func OpenDB(ctx context.Context, db *sql.DB, mysql bool) (*Index, error) {
	x := Index{db: db, e: SQLite}
	if mysql {
		x.e = MySQL
	}
	for _, q := range render(x.e) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return nil, fmt.Errorf("index schema: %w", err)
		}
	}
	if mysql {
		if err := addIndexes(ctx, db); err != nil {
			return nil, fmt.Errorf("index schema: %w", err)
		}
	}
	return &x, nil
}

// Close closes the database.
func (x *Index) Close() error { return x.db.Close() }

// Session is one session as the index holds it. Times are Unix
// milliseconds (UTC); the JSON form (Search's answer) writes them as
// RFC 3339.
type Session struct {
	Tenant    string // from the authenticated identity ("" the default tenant)
	ID        string
	Developer string // from the authenticated identity, else what the session asserted, else ""
	Machine   string
	Repo      string // the last element of the session's first cwd
	Cwd       string
	Harness   string
	StartMS   int64
	EndMS     int64 // the last step's time
	Steps     int64
	Level     string // "server", or "logged" when the server keeps a transparency log
	Policy    string // the organization policy's digest its gate steps name, "" none
	Ended     bool   // its last SessionStart was followed by a SessionEnd
	Verdict   string // "sealed", "open", or "tombstoned"
	Lost      int64  // events the hook numbered that never arrived (logbook.lost)
	Unsent    int64  // events the hook could not send (logbook.unsent)
	Refused   int64  // events the server refused to write (logbook.lost, reason refused)
	Tombstone bool
	Commits   []string
	Tools     []string
	Decisions []string
}

// Outage reports whether the session names events it lost.
func (s *Session) Outage() bool { return s.Lost > 0 || s.Unsent > 0 || s.Refused > 0 }

const sessionColumns = "tenant, id, developer, machine, repo, cwd, harness, start_ms, end_ms, steps, level, policy, ended, verdict, lost, unsent, refused, outage, tombstoned, commits, tools, decisions"

// Put writes sessions (each replacing what the index held of it) in one
// transaction. An entry never goes back: a session with fewer steps than
// the index holds of it is skipped, as when replicas on one database
// (docs/replicas.md) each feed the index from their own working copy and
// one that appended earlier puts its entry after one that appended
// later. A tombstoned one replaces it whatever its steps, and a live one
// never replaces a tombstoned one (a feed that read the session before
// it was deleted, on another replica, puts last).
func (x *Index) Put(ctx context.Context, ss ...*Session) error {
	// Replicas' feeds put into one MySQL index at once, and InnoDB
	// answers some of their transactions with a deadlock (the DELETEs'
	// gap locks cross): the loser is rolled back whole and tried again,
	// where it was a batch of entries lost (TestPutConcurrentReplicas:
	// 9 of 100 puts from 4 feeds).
	for try := 1; ; try++ {
		err := x.put(ctx, ss)
		var me *mysql.MySQLError
		if try < putTries && errors.As(err, &me) && me.Number == 1213 { // ER_LOCK_DEADLOCK
			continue
		}
		return err
	}
}

// putTries bounds Put's tries on deadlocks.
const putTries = 8

func (x *Index) put(ctx context.Context, ss []*Session) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := putTx(ctx, tx, ss); err != nil {
		return err
	}
	return tx.Commit()
}

func putTx(ctx context.Context, tx *sql.Tx, ss []*Session) error {
	delS, err := tx.PrepareContext(ctx, "DELETE FROM sessions WHERE tenant = ? AND id = ? AND ((tombstoned = 0 AND steps <= ?) OR ? = 1)")
	if err != nil {
		return err
	}
	newer, err := tx.PrepareContext(ctx, "SELECT COUNT(*) FROM sessions WHERE tenant = ? AND id = ?")
	if err != nil {
		return err
	}
	delT, err := tx.PrepareContext(ctx, "DELETE FROM session_terms WHERE tenant = ? AND id = ?")
	if err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO sessions ("+sessionColumns+") VALUES (?"+strings.Repeat(", ?", 21)+")")
	if err != nil {
		return err
	}
	term, err := tx.PrepareContext(ctx, "INSERT INTO session_terms (tenant, field, term, start_ms, id) VALUES (?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	for _, s := range ss {
		if err := s.Check(); err != nil {
			return err
		}
		res, err := delS.ExecContext(ctx, s.Tenant, s.ID, s.Steps, b2i(s.Tombstone))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var held int
			if err := newer.QueryRowContext(ctx, s.Tenant, s.ID).Scan(&held); err != nil {
				return err
			}
			if held > 0 {
				continue // the index holds a later state of it
			}
		}
		if _, err := delT.ExecContext(ctx, s.Tenant, s.ID); err != nil {
			return err
		}
		if _, err := ins.ExecContext(ctx, s.Tenant, s.ID, s.Developer, s.Machine, s.Repo, s.Cwd, s.Harness, s.StartMS, s.EndMS, s.Steps,
			s.Level, s.Policy, b2i(s.Ended), s.Verdict, s.Lost, s.Unsent, s.Refused, b2i(s.Outage()), b2i(s.Tombstone),
			strings.Join(s.Commits, " "), strings.Join(s.Tools, " "), strings.Join(s.Decisions, " ")); err != nil {
			return err
		}
		for _, f := range []struct {
			field string
			terms []string
		}{{FieldCommit, s.Commits}, {FieldTool, s.Tools}, {FieldDecision, s.Decisions}} {
			for _, t := range f.terms {
				if _, err := term.ExecContext(ctx, s.Tenant, f.field, t, s.StartMS, s.ID); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// The fields of session_terms.
const (
	FieldCommit   = "commit"
	FieldTool     = "tool"
	FieldDecision = "decision"
)

// ErrTooLong is returned for a value longer than its column.
var ErrTooLong = errors.New("index: value longer than its column")

// Check refuses what the columns cannot hold, the same on both engines
// (SQLite would store it, MySQL refuse it), and a term with a space (the
// lists are stored space-separated for display).
func (s *Session) Check() error {
	for _, f := range []struct {
		v string
		n int
	}{{s.Tenant, 64}, {s.ID, 128}, {s.Developer, 191}, {s.Machine, 191}, {s.Repo, 191}, {s.Cwd, 1024}, {s.Harness, 128},
		{s.Level, 16}, {s.Policy, 64}, {s.Verdict, 64}} {
		if len(f.v) > f.n {
			return fmt.Errorf("%w: %.40q… (%d bytes, the most is %d)", ErrTooLong, f.v, len(f.v), f.n)
		}
	}
	for _, l := range [][]string{s.Commits, s.Tools, s.Decisions} {
		for _, t := range l {
			if len(t) > 191 || t == "" || strings.ContainsAny(t, " \t\r\n") {
				return fmt.Errorf("%w: term %.40q", ErrTooLong, t)
			}
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Get returns one session, or nil when the index has none.
func (x *Index) Get(ctx context.Context, tenant, id string) (*Session, error) {
	rows, err := x.db.QueryContext(ctx, "SELECT "+sessionColumns+" FROM sessions WHERE tenant = ? AND id = ?", tenant, id)
	if err != nil {
		return nil, err
	}
	ss, err := scan(rows)
	if err != nil || len(ss) == 0 {
		return nil, err
	}
	return ss[0], nil
}

func scan(rows *sql.Rows) ([]*Session, error) {
	defer rows.Close()
	var out []*Session
	for rows.Next() {
		var s Session
		var ended, outage, tomb int
		var commits, tools, decisions string
		if err := rows.Scan(&s.Tenant, &s.ID, &s.Developer, &s.Machine, &s.Repo, &s.Cwd, &s.Harness, &s.StartMS, &s.EndMS, &s.Steps,
			&s.Level, &s.Policy, &ended, &s.Verdict, &s.Lost, &s.Unsent, &s.Refused, &outage, &tomb, &commits, &tools, &decisions); err != nil {
			return nil, err
		}
		s.Ended, s.Tombstone = ended != 0, tomb != 0
		s.Commits, s.Tools, s.Decisions = strings.Fields(commits), strings.Fields(tools), strings.Fields(decisions)
		out = append(out, &s)
	}
	return out, rows.Err()
}

// Reset empties the tables Reindex rebuilds (not the retention policies
// and holds, which only an admin sets).
func (x *Index) Reset(ctx context.Context) error {
	for _, t := range rebuilt {
		if _, err := x.db.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return err
		}
	}
	return nil
}
