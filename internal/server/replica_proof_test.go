package server_test

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"net/http"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
	"github.com/logbook-project/logbook/internal/translog"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestReplicaProofAfterKill: a record sealed on a replica that died
// before its log proof was set (the row's proof NULL, what a kill -9
// between the commit and the prover leaves) is proved by another
// replica: at its start, and, by a replica already running, in its
// periodic sweep. The proof verifies at level logged.
func TestReplicaProofAfterKill(t *testing.T) {
	defer server.SetProofSweep(50 * time.Millisecond)()
	dsn := testmysql.DSN(t)
	var logs []*translog.Log
	t.Cleanup(func() {
		for _, tl := range logs {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			tl.Close(ctx)
			cancel()
		}
	})
	var vkey string
	start := func() *fixture {
		db, err := dbstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return newServer(t, func(c *server.Config, _ *http.Server) {
			c.DB = db
			tl, err := translog.Open(context.Background(), translog.Config{Driver: translog.MySQL, DSN: dsn, Origin: "logbook.test/log", Key: c.Key})
			if err != nil {
				t.Fatal(err)
			}
			logs = append(logs, tl)
			c.TLog, vkey = tl, tl.VerifierKey()
		})
	}
	raw, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	sealKilled := func(f *fixture, session string) {
		t.Helper()
		f.record(t, http.DefaultClient, session, 4, true)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := f.srv.WaitProofs(ctx); err != nil {
			t.Fatal(err)
		}
		// What the replica leaves when killed before its prover set the proof.
		if _, err := raw.Exec("UPDATE `logbook_sessions` SET `tlog_proof` = NULL WHERE `id` = ?", session); err != nil {
			t.Fatal(err)
		}
	}
	var pol *logproof.Policy
	proved := func(f *fixture, session string) bool {
		code, proof := get(t, f.ts.URL+"/v1/sessions/"+session+"/tlog-proof")
		if code != 200 {
			return false
		}
		_, rec := get(t, f.ts.URL+"/v1/sessions/"+session+"/record")
		o := verdict.Run(verdict.Inputs{Record: rec, Pinned: []ed25519.PublicKey{f.pub}, Log: verdict.LogInputs{Proof: proof, Policy: pol}})
		if !o.Result.OK || o.Level != logproof.LevelLogged {
			t.Fatalf("%s: the completed proof: %s %s level %q", session, o.Result.Code, o.Result.Detail, o.Level)
		}
		return true
	}

	a := start()
	if pol, err = logproof.ParsePolicy([]byte("log " + vkey + "\nquorum none\n")); err != nil {
		t.Fatal(err)
	}
	sealKilled(a, "killed-before")
	// Another replica, at its start.
	b := start()
	if proved(b, "killed-before") {
		t.Fatal("the proof is there before any replica completed it")
	}
	if _, err := b.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := b.srv.WaitProofs(ctx); err != nil {
		t.Fatal(err)
	}
	if !proved(b, "killed-before") {
		t.Fatal("a replica's start did not complete the proof of a record sealed on a replica killed before it")
	}
	// A replica already running, in its periodic sweep.
	sealKilled(a, "killed-while")
	for !proved(b, "killed-while") {
		if ctx.Err() != nil {
			t.Fatal("the running replica's sweep did not complete the proof")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
