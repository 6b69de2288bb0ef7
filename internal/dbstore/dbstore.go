// Package dbstore keeps what logbook-server replicas share in one
// MariaDB/MySQL database: each session's journal lines, its checkpoints,
// its sealed record, and the row whose lock makes one replica at a time
// the session's writer (docs/replicas.md). The transparency log lives in
// the same database through Tessera's own MySQL tables (internal/translog).
//
// Tables (created at Open, idempotently; every name starts logbook_ so
// that Tessera's tables and the index's sit beside them):
//
//	logbook_sessions     one row per session: its lock, how far its journal goes, what it signed and sealed, whether retention tombstoned it
//	logbook_lines        the journal's lines (header first, n = 0), one row each
//	logbook_checkpoints  every checkpoint signed, one per size: a second one at a size is refused (no fork)
//
// and, with a fleet (Store.Fleet, fleet.go), its enrollment codes,
// credentials and sessions' owners: logbook_fleet_enroll,
// logbook_fleet_credentials, logbook_session_owners.
package dbstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Session ids are compared byte for byte (ascii_bin): MariaDB's default
// collation is case-insensitive, and sessions "A" and "a" are two.
var schema = []string{
	"CREATE TABLE IF NOT EXISTS `logbook_sessions` (" +
		"`id` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`ver` BIGINT NOT NULL DEFAULT 0," +
		"`lines` BIGINT NOT NULL DEFAULT 0," +
		"`bytes` BIGINT NOT NULL DEFAULT 0," +
		"`signed` BIGINT NOT NULL DEFAULT 0," +
		"`sealed` TINYINT NOT NULL DEFAULT 0," +
		"`checkpoint` MEDIUMBLOB NULL," +
		"`record_size` BIGINT NOT NULL DEFAULT 0," +
		"`record` LONGBLOB NULL," +
		"`record_checkpoint` MEDIUMBLOB NULL," +
		"`hookseq` MEDIUMBLOB NULL," +
		"`tlog_proof` MEDIUMBLOB NULL," +
		"`tombstoned` TINYINT NOT NULL DEFAULT 0," +
		"PRIMARY KEY (`id`)) ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS `logbook_lines` (" +
		"`session` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`n` BIGINT NOT NULL," +
		"`line` LONGBLOB NOT NULL," +
		"PRIMARY KEY (`session`, `n`)) ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS `logbook_checkpoints` (" +
		"`session` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`size` BIGINT NOT NULL," +
		"`note` MEDIUMBLOB NOT NULL," +
		"PRIMARY KEY (`session`, `size`)) ENGINE=InnoDB",
}

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	packet int64 // max_allowed_packet, read at Open (packet.go)
}

// Open connects to dsn (user:pass@tcp(host:port)/db, go-sql-driver's
// form) and creates the tables when they are missing.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("--db: %v", redact(err.Error(), dsn))
	}
	if cfg.DBName == "" {
		return nil, errors.New("--db: the DSN names no database (user:pass@tcp(host:port)/DB)")
	}
	// A turn's statements go as text with their values in them
	// (interpolateParams: no prepare, execute and close, three round
	// trips, per statement), and its writes as one round trip
	// (multiStatements; Commit): 12 round trips per event became 4.
	cfg.InterpolateParams, cfg.MultiStatements = true, true
	// The largest statement is the server's to say (max_allowed_packet,
	// read at connect): a step of a 32 MiB payload, and a record of many,
	// go in one statement each.
	cfg.MaxAllowedPacket = 0
	if cfg.Timeout == 0 {
		// An unreachable database is an error in seconds, not the
		// system's minutes of TCP retries while hooks wait.
		cfg.Timeout = 5 * time.Second
	}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(128)
	db.SetMaxIdleConns(128)
	for _, s := range schema {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("--db: create the tables: %v", redact(err.Error(), dsn))
		}
	}
	if err := addTombstoned(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("--db: add logbook_sessions.tombstoned: %v", redact(err.Error(), dsn))
	}
	st := &Store{db: db}
	if st.packet, err = readPacket(ctx, st); err != nil {
		db.Close()
		return nil, fmt.Errorf("--db: read max_allowed_packet: %v", redact(err.Error(), dsn))
	}
	return st, nil
}

// addTombstoned adds the tombstoned column to a logbook_sessions made
// before it (MySQL has no ADD COLUMN IF NOT EXISTS). Two replicas
// starting together may both add it: the second's duplicate is no error.
func addTombstoned(ctx context.Context, db *sql.DB) error {
	var n int
	err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()"+
		" AND table_name = 'logbook_sessions' AND column_name = 'tombstoned'").Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	_, err = db.ExecContext(ctx, "ALTER TABLE `logbook_sessions` ADD COLUMN `tombstoned` TINYINT NOT NULL DEFAULT 0")
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1060 { // ER_DUP_FIELDNAME
		return nil
	}
	return err
}

// Close closes the connections.
func (s *Store) Close() error { return s.db.Close() }

// redact keeps a password out of error messages.
func redact(msg, dsn string) string {
	if at := strings.LastIndex(dsn, "@"); at > 0 {
		if c := strings.Index(dsn[:at], ":"); c >= 0 && c+1 < at {
			return strings.ReplaceAll(msg, dsn[c+1:at], "***")
		}
	}
	return msg
}

// Row is a session's row as its writer finds it.
type Row struct {
	Ver        int64  // counts the commits to the session
	Lines      int64  // journal lines, the header included
	Bytes      int64  // the journal's length in bytes
	Signed     int64  // the size the latest checkpoint counts (0: none)
	Sealed     bool   // sealed and not reopened since
	Checkpoint []byte // the latest checkpoint (nil: none)
	RecordSize int64  // the size the record was sealed at (0: no record)
	HookSeq    []byte // what the server saw of the hook's numbers (internal/server's seq state)
	// Tombstoned: the record is a retention tombstone (Tx.Tombstone);
	// the session takes no more events.
	Tombstoned bool
}

// Tx is a session's write transaction: its row is locked (SELECT … FOR
// UPDATE) from Lock until Commit or Rollback, so that one writer at a
// time, on any replica, appends to the session. It holds one connection
// and sends START TRANSACTION and COMMIT itself, each with the turn's
// statement next to it: a turn is two round trips (database/sql's Tx
// would add one for BEGIN and one for COMMIT).
type Tx struct {
	conn *sql.Conn
	id   string
	done bool
}

const lockRow = "SELECT `ver`, `lines`, `bytes`, `signed`, `sealed`, `checkpoint`, `record_size`, `hookseq`, `tombstoned` FROM `logbook_sessions` WHERE `id` = ? FOR UPDATE"

// Lock begins a transaction on session id and locks its row, creating it
// when the session is new; it waits while another replica holds it.
func (s *Store) Lock(ctx context.Context, id string) (*Tx, Row, error) {
	for range 2 {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return nil, Row{}, err
		}
		t := &Tx{conn: conn, id: id}
		r, found, err := t.lock(ctx)
		if err != nil || !found {
			t.Rollback()
		}
		if err != nil {
			return nil, Row{}, err
		}
		if found {
			return t, r, nil
		}
		// A new session: its row is made outside the transaction (an
		// INSERT IGNORE inside it would share-lock a row another replica
		// inserted, and two such locks waiting to become exclusive
		// deadlock), then locked as any other.
		if _, err := s.db.ExecContext(ctx, "INSERT IGNORE INTO `logbook_sessions` (`id`) VALUES (?)", id); err != nil {
			return nil, Row{}, err
		}
	}
	return nil, Row{}, fmt.Errorf("session %s: its row vanished while being locked", id)
}

// lock starts the transaction and reads the row locked, in one round
// trip.
func (t *Tx) lock(ctx context.Context) (r Row, found bool, err error) {
	rows, err := t.conn.QueryContext(ctx, "START TRANSACTION; "+lockRow, t.id)
	if err != nil {
		return r, false, err
	}
	defer rows.Close()
	// The first result is START TRANSACTION's (no rows); the row's is next.
	for !rows.Next() {
		if !rows.NextResultSet() {
			return r, false, rows.Err()
		}
	}
	err = rows.Scan(&r.Ver, &r.Lines, &r.Bytes, &r.Signed, &r.Sealed, &r.Checkpoint, &r.RecordSize, &r.HookSeq, &r.Tombstoned)
	return r, err == nil, err
}

// Lines returns the journal's lines from n = from on, in order.
func (t *Tx) Lines(ctx context.Context, from int64) ([][]byte, error) {
	rows, err := t.conn.QueryContext(ctx, "SELECT `n`, `line` FROM `logbook_lines` WHERE `session` = ? AND `n` >= ? ORDER BY `n`", t.id, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for want := from; rows.Next(); want++ {
		var n int64
		var line []byte
		if err := rows.Scan(&n, &line); err != nil {
			return nil, err
		}
		if n != want {
			return nil, fmt.Errorf("session %s: journal line %d missing from the database (found %d)", t.id, want, n)
		}
		out = append(out, line)
	}
	return out, rows.Err()
}

// Record returns the sealed record and the checkpoint it was sealed
// with, read under the session's lock.
func (t *Tx) Record(ctx context.Context) (record, cp []byte, err error) {
	err = t.conn.QueryRowContext(ctx, "SELECT `record`, `record_checkpoint` FROM `logbook_sessions` WHERE `id` = ?", t.id).Scan(&record, &cp)
	return record, cp, err
}

// Update is what one writer's turn added to a session.
type Update struct {
	Lines  [][]byte // journal lines appended, numbered from Row.Lines on
	Bytes  int64    // the journal's length after them
	Notes  [][]byte // checkpoints signed, in order
	Sizes  []int64  // the size each of Notes counts
	Signed int64
	Sealed bool
	// Record and RecordCP, when Record is not nil, replace the sealed
	// record; RecordSize is the size it was sealed at.
	Record, RecordCP []byte
	RecordSize       int64
	HookSeq          []byte
}

// Commit writes u after row's state and commits: the writer's turn is
// durable (InnoDB's redo log is flushed at COMMIT) before it returns, and
// the row's lock is released. On error the transaction is rolled back.
func (t *Tx) Commit(ctx context.Context, row Row, u Update) (err error) {
	defer func() {
		if err != nil {
			t.Rollback()
		}
	}()
	var q strings.Builder
	var args []any
	if len(u.Lines) > 0 {
		values(&q, "INSERT INTO `logbook_lines` (`session`, `n`, `line`) VALUES ", len(u.Lines), 3)
		for i, l := range u.Lines {
			args = append(args, t.id, row.Lines+int64(i), l)
		}
	}
	if len(u.Notes) > 0 {
		values(&q, "INSERT INTO `logbook_checkpoints` (`session`, `size`, `note`) VALUES ", len(u.Notes), 3)
		for i, n := range u.Notes {
			args = append(args, t.id, u.Sizes[i], n)
		}
	}
	cp := row.Checkpoint
	if len(u.Notes) > 0 {
		cp = u.Notes[len(u.Notes)-1]
	}
	q.WriteString("UPDATE `logbook_sessions` SET `ver` = `ver` + 1, `lines` = ?, `bytes` = ?, `signed` = ?, `sealed` = ?, `checkpoint` = ?, `hookseq` = ?")
	args = append(args, row.Lines+int64(len(u.Lines)), u.Bytes, u.Signed, u.Sealed, cp, u.HookSeq)
	if u.Record != nil {
		// A new record's log proof is to come; the last one's is stale.
		q.WriteString(", `record` = ?, `record_checkpoint` = ?, `record_size` = ?, `tlog_proof` = NULL")
		args = append(args, u.Record, u.RecordCP, u.RecordSize)
	}
	// The statements stop at the first that fails, before COMMIT.
	q.WriteString(" WHERE `id` = ?; COMMIT")
	if _, err := t.conn.ExecContext(ctx, q.String(), append(args, t.id)...); err != nil {
		return err
	}
	t.done = true
	return t.conn.Close()
}

// Tombstone replaces the session's record by tomb, a signed retention
// tombstone, deletes its journal lines and hook numbers, and commits.
// Its checkpoints stay, and the checkpoint its record was sealed with:
// the transparency log's entries name them, and the tombstone repeats
// the deleted record's tip and size. Every replica then serves tomb as
// the record, and refuses the session's events (Row.Tombstoned).
func (t *Tx) Tombstone(ctx context.Context, tomb []byte) (err error) {
	defer func() {
		if err != nil {
			t.Rollback()
		}
	}()
	_, err = t.conn.ExecContext(ctx, "DELETE FROM `logbook_lines` WHERE `session` = ?; "+
		"UPDATE `logbook_sessions` SET `ver` = `ver` + 1, `lines` = 0, `bytes` = 0, `hookseq` = NULL, `record` = ?, `tombstoned` = 1 WHERE `id` = ?; COMMIT",
		t.id, tomb, t.id)
	if err != nil {
		return err
	}
	t.done = true
	return t.conn.Close()
}

// Rollback ends the transaction with nothing written, and gives its
// connection back (or drops it, when even ROLLBACK fails: a connection
// in the middle of a transaction must not serve anyone else).
func (t *Tx) Rollback() error {
	if t.done {
		return nil
	}
	t.done = true
	_, err := t.conn.ExecContext(context.Background(), "ROLLBACK")
	if err != nil {
		t.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	t.conn.Close()
	return err
}

// values writes an INSERT of rows rows of cols placeholders each, and
// the ';' that ends it.
func values(b *strings.Builder, head string, rows, cols int) {
	b.WriteString(head)
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	b.WriteString("; ")
}

// Checkpoint returns a session's latest checkpoint (nil: none).
func (s *Store) Checkpoint(ctx context.Context, id string) ([]byte, error) {
	var cp []byte
	err := s.db.QueryRowContext(ctx, "SELECT `checkpoint` FROM `logbook_sessions` WHERE `id` = ?", id).Scan(&cp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return cp, err
}

// Record returns a session's sealed record and the checkpoint it was
// sealed with, read together (nil: no record).
func (s *Store) Record(ctx context.Context, id string) (record, cp []byte, err error) {
	err = s.db.QueryRowContext(ctx, "SELECT `record`, `record_checkpoint` FROM `logbook_sessions` WHERE `id` = ?", id).Scan(&record, &cp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	return record, cp, err
}

// SetProof keeps the transparency log's proof of a sealed record, when
// the record is still the one sealed with checkpoint leaf (a reseal since
// makes it stale: the newer record's prover sets its own).
func (s *Store) SetProof(ctx context.Context, id string, leaf, proof []byte) error {
	_, err := s.db.ExecContext(ctx, "UPDATE `logbook_sessions` SET `tlog_proof` = ? WHERE `id` = ? AND `record_checkpoint` = ?", proof, id, leaf)
	return err
}

// OpenSession is a session still recording (not sealed since its last event,
// not tombstoned) and its journal's first line, the header.
type OpenSession struct {
	ID     string
	Header []byte
}

// OpenSessions lists the sessions still recording, on every replica,
// with their journals' headers (what POST /v1/commits reads the cwd of).
func (s *Store) OpenSessions(ctx context.Context) ([]OpenSession, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT s.`id`, l.`line` FROM `logbook_sessions` s JOIN `logbook_lines` l ON l.`session` = s.`id` AND l.`n` = 0 WHERE s.`sealed` = 0 AND s.`tombstoned` = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []OpenSession
	for rows.Next() {
		var o OpenSession
		if err := rows.Scan(&o.ID, &o.Header); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// Unproved is a record committed without its log proof: the leaf is the
// checkpoint it was sealed with.
type Unproved struct {
	ID   string
	Leaf []byte
}

// UnprovedRecords lists (at most limit) records that have no log proof:
// sealed on a replica that died before its prover set it, or still being
// proved by the replica that sealed them.
func (s *Store) UnprovedRecords(ctx context.Context, limit int) ([]Unproved, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT `id`, `record_checkpoint` FROM `logbook_sessions` WHERE `record_size` > 0 AND `tlog_proof` IS NULL AND `tombstoned` = 0 AND `record_checkpoint` IS NOT NULL LIMIT ?", limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Unproved
	for rows.Next() {
		var u Unproved
		if err := rows.Scan(&u.ID, &u.Leaf); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// Proof returns the log proof of a session's record (nil: none yet).
func (s *Store) Proof(ctx context.Context, id string) ([]byte, error) {
	var p []byte
	err := s.db.QueryRowContext(ctx, "SELECT `tlog_proof` FROM `logbook_sessions` WHERE `id` = ?", id).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}
