// Package mysqltest gives each MySQL log test a database of its own on the
// server scripts/mariadb.sh starts. go test runs packages in parallel: two
// of them sharing one database saw each other's leaves (and one dropped
// the other's tables), so each now empties and uses its own.
package mysqltest

import (
	"database/sql"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// FreshDSN returns $LOGBOOK_TEST_MYSQL_DSN pointed at the database
// logbook_test_NAME, dropped and created anew; it skips tb when the
// variable is unset. scripts/mariadb.sh grants its user every database
// named logbook_test*.
func FreshDSN(tb testing.TB, name string) string {
	tb.Helper()
	dsn := os.Getenv("LOGBOOK_TEST_MYSQL_DSN")
	if dsn == "" {
		tb.Skip("LOGBOOK_TEST_MYSQL_DSN is not set: run scripts/mariadb.sh (CI does)")
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("LOGBOOK_TEST_MYSQL_DSN: %v", err)
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	cfg.DBName = "logbook_test_" + name
	for _, q := range []string{"DROP DATABASE IF EXISTS `" + cfg.DBName + "`", "CREATE DATABASE `" + cfg.DBName + "`"} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v (scripts/mariadb.sh grants its user the databases logbook_test*)", q, err)
		}
	}
	return cfg.FormatDSN()
}
