package dbstore_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

func open(t *testing.T) *dbstore.Store {
	s, err := dbstore.Open(context.Background(), testmysql.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestStaleTurnRefused: a turn built on a row another turn has moved on
// from (what two replicas without the lock would do) is refused whole by
// the tables' keys, and leaves the session as the first turn made it.
func TestStaleTurnRefused(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	tx, row, err := s.Lock(ctx, "S")
	if err != nil {
		t.Fatal(err)
	}
	stale := row
	if err := tx.Commit(ctx, row, dbstore.Update{Lines: [][]byte{[]byte("header"), []byte("step 0")}, Bytes: 14,
		Notes: [][]byte{[]byte("cp 1")}, Sizes: []int64{1}, Signed: 1}); err != nil {
		t.Fatal(err)
	}
	tx, _, err = s.Lock(ctx, "S")
	if err != nil {
		t.Fatal(err)
	}
	err = tx.Commit(ctx, stale, dbstore.Update{Lines: [][]byte{[]byte("header"), []byte("other step 0")}, Bytes: 20,
		Notes: [][]byte{[]byte("other cp 1")}, Sizes: []int64{1}, Signed: 1})
	if err == nil || !strings.Contains(err.Error(), "Duplicate") {
		t.Fatalf("a turn on a stale row: %v", err)
	}
	tx, row, err = s.Lock(ctx, "S")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := tx.Lines(ctx, 0)
	tx.Rollback()
	if err != nil || row.Lines != 2 || row.Bytes != 14 || string(row.Checkpoint) != "cp 1" || len(lines) != 2 || string(lines[1]) != "step 0" {
		t.Fatalf("row %+v lines %q %v", row, lines, err)
	}
	if cp, _ := s.Checkpoint(ctx, "S"); string(cp) != "cp 1" {
		t.Fatalf("checkpoint %q", cp)
	}
}

// TestSessionIDsByteForByte: "A" and "a" are two sessions (MariaDB's
// default collation would take them for one).
func TestSessionIDsByteForByte(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	for _, id := range []string{"A", "a"} {
		tx, row, err := s.Lock(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if row.Lines != 0 {
			t.Fatalf("%s: a new session has %d lines", id, row.Lines)
		}
		if err := tx.Commit(ctx, row, dbstore.Update{Lines: [][]byte{[]byte("header " + id)}, Bytes: 9}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenNamesNoPassword: a DSN that cannot be used is refused without
// its password in the message.
func TestOpenNamesNoPassword(t *testing.T) {
	_, err := dbstore.Open(context.Background(), "logbook:s3cret-pw@tcp(127.0.0.1:1)/")
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "names no database") {
		t.Fatalf("%v", err)
	}
	_, err = dbstore.Open(context.Background(), "logbook:s3cret-pw@tcp(127.0.0.1:1)/logbook?timeout=1s")
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("%v", err)
	}
}

// TestTombstone: a tombstone replaces the record and deletes the journal
// lines in the row's transaction; the checkpoints, the record's
// checkpoint and the row's count of what was signed stay, and the row
// says tombstoned to every later turn.
func TestTombstone(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	tx, row, err := s.Lock(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx, row, dbstore.Update{Lines: [][]byte{[]byte("header"), []byte("step 0")}, Bytes: 14,
		Notes: [][]byte{[]byte("cp 1")}, Sizes: []int64{1}, Signed: 1, Sealed: true,
		Record: []byte("record"), RecordCP: []byte("cp 1"), RecordSize: 1}); err != nil {
		t.Fatal(err)
	}
	tx, row, err = s.Lock(ctx, "T")
	if err != nil || row.Tombstoned {
		t.Fatalf("%+v %v", row, err)
	}
	if err := tx.Tombstone(ctx, []byte("tombstone")); err != nil {
		t.Fatal(err)
	}
	tx, row, err = s.Lock(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := tx.Lines(ctx, 0)
	tx.Rollback()
	if err != nil || len(lines) != 0 || !row.Tombstoned || row.Lines != 0 || row.Bytes != 0 || row.Signed != 1 || row.RecordSize != 1 || string(row.Checkpoint) != "cp 1" {
		t.Fatalf("row %+v lines %q %v", row, lines, err)
	}
	if rec, cp, err := s.Record(ctx, "T"); err != nil || string(rec) != "tombstone" || string(cp) != "cp 1" {
		t.Fatalf("record %q %q %v", rec, cp, err)
	}
}

// TestOpenAddsTombstoned: a logbook_sessions made before its tombstoned
// column gets it at Open, and a second Open (another replica) finds it.
func TestOpenAddsTombstoned(t *testing.T) {
	dsn := testmysql.DSN(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE `logbook_sessions` (`id` VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL," +
		"`ver` BIGINT NOT NULL DEFAULT 0, `lines` BIGINT NOT NULL DEFAULT 0, `bytes` BIGINT NOT NULL DEFAULT 0," +
		"`signed` BIGINT NOT NULL DEFAULT 0, `sealed` TINYINT NOT NULL DEFAULT 0, `checkpoint` MEDIUMBLOB NULL," +
		"`record_size` BIGINT NOT NULL DEFAULT 0, `record` LONGBLOB NULL, `record_checkpoint` MEDIUMBLOB NULL," +
		"`hookseq` MEDIUMBLOB NULL, `tlog_proof` MEDIUMBLOB NULL, PRIMARY KEY (`id`)) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO `logbook_sessions` (`id`, `lines`) VALUES ('old', 3)"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		s, err := dbstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		tx, row, err := s.Lock(context.Background(), "old")
		if err != nil {
			t.Fatal(err)
		}
		tx.Rollback()
		s.Close()
		if row.Lines != 3 || row.Tombstoned {
			t.Fatalf("%+v", row)
		}
	}
}
