// Package dbstore keeps what logbook-server replicas share in one
// MariaDB/MySQL database: each session's journal lines, its checkpoints,
// its sealed record, and the row whose lock makes one replica at a time
// the session's writer (docs/replicas.md). The transparency log lives in
// the same database through Tessera's own MySQL tables (internal/translog).
//
// Tables (created at Open, idempotently; every name starts logbook_ so
// that Tessera's tables and the index's sit beside them):
//
//	logbook_sessions     one row per session: its lock, how far its journal goes, what it signed and sealed
//	logbook_lines        the journal's lines (header first, n = 0), one row each
//	logbook_checkpoints  every checkpoint signed, one per size: a second one at a size is refused (no fork)
package dbstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

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
type Store struct{ db *sql.DB }

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
	return &Store{db: db}, nil
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
}

// Tx is a session's write transaction: its row is locked (SELECT … FOR
// UPDATE) from Lock until Commit or Rollback, so that one writer at a
// time, on any replica, appends to the session.
type Tx struct {
	tx *sql.Tx
	id string
}

// Lock begins a transaction on session id and locks its row, creating it
// when the session is new; it waits while another replica holds it.
func (s *Store) Lock(ctx context.Context, id string) (*Tx, Row, error) {
	for range 2 {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, Row{}, err
		}
		var r Row
		err = tx.QueryRowContext(ctx, "SELECT `ver`, `lines`, `bytes`, `signed`, `sealed`, `checkpoint`, `record_size`, `hookseq` FROM `logbook_sessions` WHERE `id` = ? FOR UPDATE", id).
			Scan(&r.Ver, &r.Lines, &r.Bytes, &r.Signed, &r.Sealed, &r.Checkpoint, &r.RecordSize, &r.HookSeq)
		if err == nil {
			return &Tx{tx: tx, id: id}, r, nil
		}
		tx.Rollback()
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, Row{}, err
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

// Lines returns the journal's lines from n = from on, in order.
func (t *Tx) Lines(ctx context.Context, from int64) ([][]byte, error) {
	rows, err := t.tx.QueryContext(ctx, "SELECT `n`, `line` FROM `logbook_lines` WHERE `session` = ? AND `n` >= ? ORDER BY `n`", t.id, from)
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
	err = t.tx.QueryRowContext(ctx, "SELECT `record`, `record_checkpoint` FROM `logbook_sessions` WHERE `id` = ?", t.id).Scan(&record, &cp)
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
			t.tx.Rollback()
		}
	}()
	if len(u.Lines) > 0 {
		q, args := values("INSERT INTO `logbook_lines` (`session`, `n`, `line`) VALUES ", len(u.Lines), 3)
		for i, l := range u.Lines {
			args = append(args, t.id, row.Lines+int64(i), l)
		}
		if _, err := t.tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	if len(u.Notes) > 0 {
		q, args := values("INSERT INTO `logbook_checkpoints` (`session`, `size`, `note`) VALUES ", len(u.Notes), 3)
		for i, n := range u.Notes {
			args = append(args, t.id, u.Sizes[i], n)
		}
		if _, err := t.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	cp := row.Checkpoint
	if len(u.Notes) > 0 {
		cp = u.Notes[len(u.Notes)-1]
	}
	set := "UPDATE `logbook_sessions` SET `ver` = `ver` + 1, `lines` = ?, `bytes` = ?, `signed` = ?, `sealed` = ?, `checkpoint` = ?, `hookseq` = ?"
	args := []any{row.Lines + int64(len(u.Lines)), u.Bytes, u.Signed, u.Sealed, cp, u.HookSeq}
	if u.Record != nil {
		set += ", `record` = ?, `record_checkpoint` = ?, `record_size` = ?"
		args = append(args, u.Record, u.RecordCP, u.RecordSize)
	}
	if _, err := t.tx.ExecContext(ctx, set+" WHERE `id` = ?", append(args, t.id)...); err != nil {
		return err
	}
	return t.tx.Commit()
}

// Rollback ends the transaction with nothing written.
func (t *Tx) Rollback() error { return t.tx.Rollback() }

// values is an INSERT of rows rows of cols placeholders each.
func values(head string, rows, cols int) (string, []any) {
	var b strings.Builder
	b.WriteString(head)
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(one)
	}
	return b.String(), make([]any, 0, rows*cols)
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
