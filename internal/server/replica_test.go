package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
	"github.com/logbook-project/logbook/internal/translog"
)

// replicas starts n servers, each with a working copy of its own, on one
// database.
func replicas(t *testing.T, n int) []*fixture {
	dsn := testmysql.DSN(t)
	var out []*fixture
	for range n {
		db, err := dbstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		out = append(out, newServer(t, func(c *server.Config, _ *http.Server) { c.DB = db }))
	}
	return out
}

// TestReplicasOneSession: the events of one session, sent at once to
// three replicas, make one chain: every event once, at never going back,
// one checkpoint per size, and the record any replica serves verifies
// against the checkpoint any other serves.
func TestReplicasOneSession(t *testing.T) {
	rs := replicas(t, 3)
	const writers, each = 6, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				f := rs[(w+i)%len(rs)]
				if code, b := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", event("rep", "PreToolUse", w*1000+i)); code != 200 {
					t.Errorf("%d %s", code, b)
				}
			}
		})
	}
	wg.Wait()
	rs[1].record(t, http.DefaultClient, "rep", 0, true)
	var rec []byte
	for i, f := range rs {
		code, b := get(t, f.ts.URL+"/v1/sessions/rep/record")
		if code != 200 {
			t.Fatalf("replica %d: record: %d %s", i, code, b)
		}
		if rec != nil && !bytes.Equal(b, rec) {
			t.Fatalf("replica %d serves another record", i)
		}
		rec = b
	}
	_, cp := get(t, rs[2].ts.URL+"/v1/sessions/rep/checkpoint")
	o := rs[0].verify(rec, cp)
	if !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount != writers*each+2 {
		t.Fatalf("%+v", o.Result)
	}
	seen := toolIDs(t, rec)
	for w := range writers {
		for i := range each {
			if id := fmt.Sprintf("toolu_%06d", w*1000+i); seen[id] != 1 {
				t.Fatalf("%s recorded %d times", id, seen[id])
			}
		}
	}
}

// toolIDs counts the PreToolUse steps of a record by tool_use_id.
func toolIDs(t *testing.T, rec []byte) map[string]int {
	var r struct {
		Steps []struct {
			Data struct{ Event, ToolUseID string }
		}
	}
	if err := json.Unmarshal(rec, &r); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, s := range r.Steps {
		if s.Data.Event == "PreToolUse" {
			seen[s.Data.ToolUseID]++
		}
	}
	return seen
}

// TestReplicaReopen: a session sealed on one replica, resumed on another
// and ended on the third is sealed again over every step.
func TestReplicaReopen(t *testing.T) {
	rs := replicas(t, 3)
	rs[0].record(t, http.DefaultClient, "re", 4, true)
	if code, b := post(t, http.DefaultClient, rs[1].ts.URL+"/v1/hooks/claude-code", event("re", "SessionStart", 0)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	rs[1].record(t, http.DefaultClient, "re", 2, false)
	rs[2].record(t, http.DefaultClient, "re", 0, true)
	_, rec := get(t, rs[0].ts.URL+"/v1/sessions/re/record")
	_, cp := get(t, rs[1].ts.URL+"/v1/sessions/re/checkpoint")
	if o := rs[2].verify(rec, cp); !o.Result.OK || o.Result.StepCount != 4+1+1+2+1 {
		t.Fatalf("%+v", o.Result)
	}
}

// TestReplicaProof: the log proof of a record sealed on one replica is
// served by another (the log is Tessera's MySQL tables on the same
// database), and it is the sealing replica's.
func TestReplicaProof(t *testing.T) {
	dsn := testmysql.DSN(t)
	var rs []*fixture
	var logs []*translog.Log
	for range 2 {
		db, err := dbstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, newServer(t, func(c *server.Config, _ *http.Server) {
			c.DB = db
			tl, err := translog.Open(context.Background(), translog.Config{Driver: translog.MySQL, DSN: dsn, Origin: "logbook.test/log", Key: c.Key})
			if err != nil {
				t.Fatal(err)
			}
			logs = append(logs, tl)
			c.TLog = tl
		}))
	}
	t.Cleanup(func() {
		for _, tl := range logs {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			tl.Close(ctx)
			cancel()
		}
	})
	rs[1].record(t, http.DefaultClient, "proved", 4, false)
	rs[0].record(t, http.DefaultClient, "proved", 2, true)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := rs[0].srv.WaitProofs(ctx); err != nil {
		t.Fatal(err)
	}
	mine, err := os.ReadFile(filepath.Join(rs[0].opts.Dir, "proved.record.tlog-proof"))
	if err != nil {
		t.Fatal(err)
	}
	code, theirs := get(t, rs[1].ts.URL+"/v1/sessions/proved/tlog-proof")
	if code != 200 || !bytes.Equal(theirs, mine) {
		t.Fatalf("the other replica: %d %q", code, theirs)
	}
}

// TestReplicaSeq: the hook's numbers are the session's, not a replica's
// (kept in its row): events numbered 1…8 spread over three replicas out
// of order make no gap, and a number never received is named once, in
// the record sealed on whichever replica gets the SessionEnd.
func TestReplicaSeq(t *testing.T) {
	rs := replicas(t, 3)
	for i, n := range []int{1, 3, 2, 4, 6, 5, 7, 8} {
		mustSeq(t, rs[i%3], event("rq", "PreToolUse", n), n)
	}
	mustSeq(t, rs[1], event("rq", "SessionEnd", 0), 9)
	if g := rs[2].sealedGaps(t, "rq"); g.SequenceHoles != 0 || g.SequenceResets != 0 {
		t.Fatalf("numbers spread over replicas: %+v", g)
	}
	for i, n := range []int{1, 2, 4, 5} { // 3 never arrives
		mustSeq(t, rs[i%3], event("rh", "PreToolUse", n), n)
	}
	mustSeq(t, rs[2], event("rh", "SessionEnd", 0), 6)
	if g := rs[0].sealedGaps(t, "rh"); g.SequenceHoles != 1 || g.SequenceResets != 0 {
		t.Fatalf("one number never received: %+v", g)
	}
}

// TestReplicaLockBounded: a session whose row another writer holds (a
// replica stuck in its turn) is refused WRITE_FAILED once the wait for an
// append slot has passed, never waited on for ever; the session goes on
// once the row is free, and its record names the refused event.
func TestReplicaLockBounded(t *testing.T) {
	defer server.SetSlotWait(300 * time.Millisecond)()
	dsn := testmysql.DSN(t)
	db, err := dbstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.DB = db })
	f.record(t, http.DefaultClient, "held", 2, false)
	other, err := dbstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, _, err := other.Lock(context.Background(), "held")
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", event("held", "PreToolUse", 9))
	if code == 200 || !strings.Contains(body, "WRITE_FAILED") {
		t.Fatalf("with the row held: %d %s", code, body)
	}
	tx.Rollback()
	f.record(t, http.DefaultClient, "held", 2, true)
	_, rec := get(t, f.ts.URL+"/v1/sessions/held/record")
	_, cp := get(t, f.ts.URL+"/v1/sessions/held/record-checkpoint")
	// The refused event is named in the record (a "refused" note).
	if o := f.verify(rec, cp); !o.Result.OK || o.Result.StepCount != 2+2+1+1 || o.Result.Gaps.ServerRefused != 1 {
		t.Fatalf("%+v", o.Result)
	}
}

// TestReplicaWarnsPacket: a server started on a database logs a warning
// naming its max_allowed_packet and docs/replicas.md when it is below
// the 1 GiB the doc asks for (the test MariaDB's default, 16 MiB), and
// none when it is not; it starts either way.
func TestReplicaWarnsPacket(t *testing.T) {
	db, err := dbstore.Open(context.Background(), testmysql.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var log bytes.Buffer
	newServer(t, func(c *server.Config, _ *http.Server) {
		c.DB = db
		c.Log = slog.New(slog.NewTextHandler(&log, nil))
	})
	warned := strings.Contains(log.String(), "level=WARN msg=database max_allowed_packet="+strconv.FormatInt(db.Packet(), 10)) &&
		strings.Contains(log.String(), "docs/replicas.md")
	if want := db.Packet() < dbstore.WantPacket; warned != want {
		t.Errorf("max_allowed_packet %d: warned %v, want %v: %s", db.Packet(), warned, want, log.String())
	}
}
