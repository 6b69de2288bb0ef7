package server_test

import (
	"bytes"
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

// TestLateEventReseals: an event after SessionEnd (a late hook, or
// `claude --resume` reusing the session id) is recorded and the session
// sealed again before the answer: the served record and the served
// checkpoint agree after every answered event.
func TestLateEventReseals(t *testing.T) {
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
	send(event("late-1", "SessionStart", 0))
	f.served(t, "late-1", 6)
	f.record(t, http.DefaultClient, "late-1", 2, true)
	f.served(t, "late-1", 10)
}

// TestResealAtStart: a server killed between a late event's checkpoint
// and its reseal seals again at start.
func TestResealAtStart(t *testing.T) {
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
