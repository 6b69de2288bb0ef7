package server_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/server"
)

// served checks that the served record verifies at level server against
// the served checkpoint, and that it holds n steps.
func (f *fixture) served(t *testing.T, id string, n int64) {
	t.Helper()
	code, rec := get(t, f.ts.URL+"/v1/sessions/"+id+"/record")
	if code != 200 {
		t.Fatalf("record: %d %s", code, rec)
	}
	code, cp := get(t, f.ts.URL+"/v1/sessions/"+id+"/checkpoint")
	if code != 200 {
		t.Fatalf("checkpoint: %d %s", code, cp)
	}
	if o := f.verify(rec, cp); !o.Result.OK || o.Level != checkpoint.LevelServer {
		t.Fatalf("served record against served checkpoint: %+v", o.Result)
	}
	c, err := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil)
	if err != nil || c.Size != n {
		t.Fatalf("checkpoint size %d, want %d (%v)", c.Size, n, err)
	}
	side, _ := os.ReadFile(filepath.Join(f.opts.Dir, id+".record.checkpoint"))
	if !bytes.Equal(side, cp) {
		t.Fatal("the record's checkpoint is not the latest")
	}
}

// TestLateEventReseals: a late hook after SessionEnd is recorded and the
// session sealed again before the answer: the served record and the
// served checkpoint agree. A SessionStart (`claude --resume` reusing the
// session id) reopens the session instead: no reseal until its next
// SessionEnd, the record sealed before stays served and verifies with
// the checkpoint it was sealed with, until the new seal replaces it.
func TestLateEventReseals(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	hook := f.ts.URL + "/v1/hooks/claude-code"
	send := func(body []byte) {
		t.Helper()
		if code, b := post(t, http.DefaultClient, hook, body); code != 200 || b != "" {
			t.Fatalf("%d %q", code, b)
		}
	}
	send(event("late-1", "SessionStart", 0))
	send(event("late-1", "PreToolUse", 1))
	send(event("late-1", "SessionEnd", 0))
	// SessionStart, PreToolUse, SessionEnd, and the seal's note naming
	// the unfinished call.
	f.served(t, "late-1", 4)
	send(event("late-1", "PostToolUse", 1))
	f.served(t, "late-1", 5)
	// Resumed: a new SessionStart, more calls, another SessionEnd.
	rec5, _ := os.ReadFile(filepath.Join(f.opts.Dir, "late-1.record.json"))
	send(event("late-1", "SessionStart", 0))
	f.record(t, http.DefaultClient, "late-1", 2, false)
	f.reopened(t, "late-1", rec5, 5, 8)
	send(event("late-1", "SessionEnd", 0))
	f.served(t, "late-1", 9)
	// Only the latest record is kept (issue 32, item 11): it covers the
	// one sealed before, whose checkpoint is still in the session's log.
	if kept, _ := filepath.Glob(filepath.Join(f.opts.Dir, "late-1.record.*.json")); len(kept) != 0 {
		t.Fatalf("earlier records kept beside the latest: %v", kept)
	}
}

// reopened checks a reopened session: the served record is still rec
// (not resealed), it verifies at level server with the served
// record-checkpoint (which counts sealed steps), and against the latest
// checkpoint (which counts now) it is TRUNCATED: the session went on.
func (f *fixture) reopened(t *testing.T, id string, rec []byte, sealed, now int64) {
	t.Helper()
	code, got := get(t, f.ts.URL+"/v1/sessions/"+id+"/record")
	if code != 200 || !bytes.Equal(got, rec) {
		t.Fatalf("record: %d, resealed: %v", code, !bytes.Equal(got, rec))
	}
	code, rcp := get(t, f.ts.URL+"/v1/sessions/"+id+"/record-checkpoint")
	if code != 200 {
		t.Fatalf("record-checkpoint: %d %s", code, rcp)
	}
	if o := f.verify(got, rcp); !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount != sealed {
		t.Fatalf("served record against its own checkpoint: %+v", o.Result)
	}
	_, cp := get(t, f.ts.URL+"/v1/sessions/"+id+"/checkpoint")
	c, err := checkpoint.Open(cp, []checkpoint.Key{{Pub: f.pub}}, nil)
	if err != nil || c.Size != now {
		t.Fatalf("latest checkpoint size %d, want %d (%v)", c.Size, now, err)
	}
	if o := f.verify(got, cp); o.Result.Code != checkpoint.Truncated {
		t.Fatalf("the earlier record against the latest checkpoint: %+v, want TRUNCATED", o.Result)
	}
}

// TestReopenSurvivesRestart: a session reopened by a SessionStart stays
// open across a restart (Resume neither reseals it nor takes it for
// sealed), and its next SessionEnd seals all of it.
func TestReopenSurvivesRestart(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "reo-1", 2, true) // 2 calls, SessionEnd, the seal's note: 3
	rec, _ := os.ReadFile(filepath.Join(f.opts.Dir, "reo-1.record.json"))
	if code, b := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/claude-code", event("reo-1", "SessionStart", 0)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	f.ts.Close()
	f.srv.Close()
	g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir = f.opts.Dir })
	if _, err := g.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	g.pub = f.pub
	g.record(t, http.DefaultClient, "reo-1", 2, false)
	g.reopened(t, "reo-1", rec, 3, 6)
	g.record(t, http.DefaultClient, "reo-1", 0, true)
	g.served(t, "reo-1", 7)
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "reo-1.reopened")); err == nil {
		t.Fatal("the reopened marker outlived the seal")
	}
}

// TestResealAtStart: a server killed between a late event's checkpoint
// and its reseal seals again at start.
func TestResealAtStart(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "late-2", 2, true)
	rec0, _ := os.ReadFile(filepath.Join(f.opts.Dir, "late-2.record.json"))
	cp0, _ := os.ReadFile(filepath.Join(f.opts.Dir, "late-2.record.checkpoint"))
	f.record(t, http.DefaultClient, "late-2", 2, false)
	f.ts.Close()
	f.srv.Close()
	// What a kill between the late event's checkpoint and its reseal
	// leaves: the previous record and its checkpoint.
	os.WriteFile(filepath.Join(f.opts.Dir, "late-2.record.json"), rec0, 0o600)
	os.WriteFile(filepath.Join(f.opts.Dir, "late-2.record.checkpoint"), cp0, 0o600)

	g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir = f.opts.Dir })
	if _, err := g.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	g.pub = f.pub
	g.served(t, "late-2", 5)
}

// TestRecordReadDuringReseal: while late events reseal a session, every
// GET of the record comes with the checkpoint it was sealed with
// (X-Logbook-Checkpoint), and the pair always verifies at level server:
// a reader is never handed a false TRUNCATED.
func TestRecordReadDuringReseal(t *testing.T) {
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "rr-1", 2, true)
	hook := f.ts.URL + "/v1/hooks/claude-code"
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 10; i < 60; i++ {
			post(t, http.DefaultClient, hook, event("rr-1", "PreToolUse", i))
		}
	}()
	reads, sizes := 0, map[int64]bool{}
	for running := true; running; reads++ {
		select {
		case <-done:
			running = false
		default:
		}
		resp, err := http.Get(f.ts.URL + "/v1/sessions/rr-1/record")
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cp, err := base64.StdEncoding.DecodeString(resp.Header.Get("X-Logbook-Checkpoint"))
		if resp.StatusCode != 200 || err != nil || len(cp) == 0 {
			t.Fatalf("%d, checkpoint header %v", resp.StatusCode, err)
		}
		o := f.verify(rec, cp)
		if !o.Result.OK || o.Level != checkpoint.LevelServer {
			t.Fatalf("read %d: the record and its checkpoint disagree: %+v", reads, o.Result)
		}
		sizes[o.Result.StepCount] = true
	}
	t.Logf("%d reads during 50 reseals, %d different record sizes, each verified with its checkpoint", reads, len(sizes))
}

// TestResumedSealOwed (issue 32, item 11): a resumed session's
// SessionEnd is answered before its seal, and nothing gets past the seal
// owed: a SessionStart that comes at once (resumed again) finds the
// session sealed up to that SessionEnd, and GET …/record serves that
// record, which verifies at level server with its checkpoint.
func TestResumedSealOwed(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "ow-1", 2, true) // 2 steps, SessionEnd: 3
	hook := f.ts.URL + "/v1/hooks/claude-code"
	for round := 0; round < 3; round++ {
		if code, b := post(t, http.DefaultClient, hook, event("ow-1", "SessionStart", 0)); code != 200 {
			t.Fatalf("%d %s", code, b)
		}
		f.record(t, http.DefaultClient, "ow-1", 2, true)
	}
	// 3 + 3 rounds of SessionStart, 2 steps, SessionEnd.
	f.served(t, "ow-1", 3+3*4)
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "ow-1.reopened")); err == nil {
		t.Fatal("the reopened marker outlived the SessionEnd")
	}
}
