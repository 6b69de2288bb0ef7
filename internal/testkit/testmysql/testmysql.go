// Package testmysql gives each test a database of its own on the MariaDB
// or MySQL server that scripts/mariadb.sh starts ($LOGBOOK_TEST_MYSQL_DSN),
// so that tests of several packages, run at once, never share a log.
package testmysql

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// DSN returns the DSN of a new, empty database, dropped when the test
// ends; it skips the test, in one line, when $LOGBOOK_TEST_MYSQL_DSN is
// not set (CI sets it: scripts/test.sh runs scripts/mariadb.sh).
func DSN(t testing.TB) string {
	base := os.Getenv("LOGBOOK_TEST_MYSQL_DSN")
	if base == "" {
		// Named in scripts/test.sh's report with the conformance tests
		// that did not run: go test hides a skip's message.
		testreport.Line(t, fmt.Sprintf("not run: %s: no MariaDB or MySQL server (LOGBOOK_TEST_MYSQL_DSN is not set: scripts/mariadb.sh starts one; scripts/test.sh does)", t.Name()))
		t.SkipNow()
	}
	cfg, err := mysql.ParseDSN(base)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := cfg.DBName + "_" + hex.EncodeToString(b)
	db, err := sql.Open("mysql", base)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE `" + name + "`"); err != nil {
		t.Fatalf("create a database for the test: %v", err)
	}
	t.Cleanup(func() {
		if db, err := sql.Open("mysql", base); err == nil {
			db.Exec("DROP DATABASE `" + name + "`")
			db.Close()
		}
	})
	cfg.DBName = name
	return cfg.FormatDSN()
}
