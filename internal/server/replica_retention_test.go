package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/dbstore"
	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// indexedReplicas starts n replicas on one database, the index's tables
// in it too (logbook-server --db), on one clock.
func indexedReplicas(t *testing.T, n int) ([]*fixture, *dbstore.Store, *time.Time) {
	dsn := testmysql.DSN(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var out []*fixture
	var first *dbstore.Store
	for range n {
		db, err := dbstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		ix, err := index.Open(context.Background(), "mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		if first == nil {
			first = db
		}
		out = append(out, newServer(t, func(c *server.Config, _ *http.Server) {
			c.DB, c.Index, c.ReadToken = db, ix, "rt"
			c.Now = func() time.Time { return now }
		}))
	}
	return out, first, &now
}

// TestReplicasRetention: retention with replicas works on the database,
// not on one replica's files. A run started on one replica is refused
// whole for a hold set on another; the run on A replaces the records in
// the database by tombstones, which B serves and the verifier names
// TOMBSTONED; an event for a deleted session is refused on every
// replica, as in file mode; its lines are gone and its checkpoints stay;
// a session an event changed on another replica after the index listed
// it is left for the next run.
func TestReplicasRetention(t *testing.T) {
	rs, db, now := indexedReplicas(t, 3)
	a, b, c := rs[0], rs[1], rs[2]
	hc := http.DefaultClient
	for i, id := range []string{"old-1", "old-2", "old-3", "new-1"} {
		if id == "new-1" {
			*now = now.Add(40 * 24 * time.Hour)
		}
		rs[i%3].record(t, hc, id, 2, true)
	}
	for _, f := range rs {
		f.srv.IndexFlush()
	}
	_, sealed := call(t, "GET", b.ts.URL+"/v1/sessions/old-1/record", "rt", "")

	if code, out := call(t, "PUT", a.ts.URL+"/v1/retention", "rt", `{"keepDays": 30}`); code != 200 {
		t.Fatalf("policy: %d %s", code, out)
	}
	if code, out := call(t, "PUT", a.ts.URL+"/v1/sessions/old-2/hold", "rt", `{"reason": "case 7"}`); code != 200 {
		t.Fatalf("hold: %d %s", code, out)
	}
	code, out := call(t, "POST", b.ts.URL+"/v1/retention/run", "rt", "")
	if code != 409 || !bytes.Contains(out, []byte("SESSION_HELD")) || !bytes.Contains(out, []byte("old-2")) {
		t.Fatalf("held, run on B: %d %s", code, out)
	}
	for _, id := range []string{"old-1", "old-2", "old-3"} {
		_, rec := call(t, "GET", c.ts.URL+"/v1/sessions/"+id+"/record", "rt", "")
		if o := c.verify(rec); !o.Result.OK {
			t.Fatalf("%s after a refused run: %+v", id, o.Result)
		}
	}
	if code, _ := call(t, "DELETE", c.ts.URL+"/v1/sessions/old-2/hold", "rt", ""); code != 200 {
		t.Fatal("release")
	}

	// old-3 changes on B (its index entry not yet written) after the
	// index listed it sealed and old: the run leaves it.
	if code, body := post(t, hc, b.ts.URL+"/v1/hooks/claude-code", event("old-3", "PreToolUse", 7)); code != 200 {
		t.Fatalf("old-3's event: %d %s", code, body)
	}
	code, out = call(t, "POST", a.ts.URL+"/v1/retention/run", "rt", `{"reason": "kept 30 days"}`)
	var run server.RunAnswer
	if code != 200 || json.Unmarshal(out, &run) != nil || !slices.Equal(run.Deleted, []string{"old-1", "old-2"}) {
		t.Fatalf("run on A: %d %s", code, out)
	}

	for _, f := range []*fixture{b, c} {
		code, rec := call(t, "GET", f.ts.URL+"/v1/sessions/old-1/record", "rt", "")
		o := f.verify(rec)
		if code != 200 || o.Result.OK || o.Result.Code != "TOMBSTONED" || !strings.Contains(o.Result.Detail, "kept 30 days") {
			t.Errorf("old-1 read on another replica: %d %+v", code, o.Result)
		}
		if bytes.Equal(rec, sealed) {
			t.Error("the sealed record is still served")
		}
		if code, _ := call(t, "GET", f.ts.URL+"/v1/sessions/old-1/checkpoint", "rt", ""); code != 200 {
			t.Errorf("old-1's checkpoint went: %d", code)
		}
	}
	// b knew old-1 (it read it), c never held it open: both refuse.
	for _, f := range []*fixture{b, c, a} {
		code, body := post(t, hc, f.ts.URL+"/v1/hooks/claude-code", event("old-1", "PreToolUse", 9))
		if code != 500 || !strings.Contains(body, "WRITE_FAILED") || !strings.Contains(body, "deleted under retention") {
			t.Errorf("an event for a deleted session: %d %s", code, body)
		}
	}
	tx, row, err := db.Lock(context.Background(), "old-1")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := tx.Lines(context.Background(), 0)
	tx.Rollback()
	if err != nil || len(lines) != 0 || row.Lines != 0 || !row.Tombstoned || row.Checkpoint == nil {
		t.Errorf("old-1's row: %d lines (%v), %+v", len(lines), err, row)
	}

	_, rec := call(t, "GET", c.ts.URL+"/v1/sessions/old-3/record", "rt", "")
	if o := c.verify(rec); o.Result.Code == "TOMBSTONED" {
		t.Errorf("old-3, changed since the index listed it, was deleted")
	}
	if got := search(t, c, "").Sessions; len(got) != 4 {
		t.Fatalf("search: %+v", got)
	} else {
		for _, v := range got {
			if tomb := v.Verdict == index.VerdictTombstoned; tomb != (v.ID == "old-1" || v.ID == "old-2") {
				t.Errorf("%s: verdict %s", v.ID, v.Verdict)
			}
		}
	}
}
