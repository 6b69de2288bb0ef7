package server_test

import (
	"crypto/ed25519"
	"database/sql"
	"strings"
	"testing"
)

type ed25519PublicKey = ed25519.PublicKey

func ed25519NewKey(b byte) ed25519.PrivateKey {
	seed := make([]byte, 32)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed)
}

// freshDB empties the test database's log tables, so that each run starts
// a new log (the DSN's user owns that database only).
func freshDB(t *testing.T, dsn string) string {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tbl := range []string{"Tessera", "Checkpoint", "TreeState", "Subtree", "TiledLeaves"} {
		if _, err := db.Exec("DROP TABLE IF EXISTS `" + tbl + "`"); err != nil && !strings.Contains(err.Error(), "Unknown") {
			t.Fatal(err)
		}
	}
	return dsn
}
