package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestReplicasKill is issue 36's item 6: three logbook-server processes
// on one MariaDB (--db), 16 clients each sending one session's events
// round-robin over the replicas from two goroutines at once (every
// session's events land on all three, two at a time), two replicas
// killed with SIGKILL mid-load (the first started again on its dirty
// working copy), each client going on to the next replica when one does
// not answer, as record-step's retry would (replicas.load). Every
// session's record, fetched from another replica than sealed it,
// verifies with logbook-verify; every event a replica acknowledged is in
// its record; every checkpoint any replica ever signed lies on the
// record's chain (0 forks; replicas.seal).
func TestReplicasKill(t *testing.T) {
	t.Parallel()
	dsn := testmysql.DSN(t)
	dir := t.TempDir()
	key := newServerKey(t, dir)
	tok, rtok := filepath.Join(dir, "token"), filepath.Join(dir, "read.token")
	os.WriteFile(tok, []byte("hook-token\n"), 0o600)
	os.WriteFile(rtok, []byte("read-token\n"), 0o600)
	addrs := []string{freePort(t), freePort(t), freePort(t)}
	r := startReplicas(t, len(addrs), func(i int) *liveServer {
		return startServer(t, addrs[i], filepath.Join(dir, fmt.Sprint("data", i)), key, nil,
			"--db", dsn, "--token-file", tok, "--read-token-file", rtok)
	})
	const clients, events = 16, 60
	var sessions, auths []string
	for c := range clients {
		sessions, auths = append(sessions, fmt.Sprintf("dev%02d-session", c)), append(auths, "hook-token")
	}
	r.load(sessions, auths, events)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for c, session := range sessions {
		r.seal(db, c, session, "hook-token", "read-token", key)
	}
}
