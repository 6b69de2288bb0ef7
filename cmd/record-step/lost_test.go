package main

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/verdict"
)

// outage is a logbook server behind a switch: while down, every event is
// answered 503 before it reaches the server (a server that is down, or
// whatever took its place), as the agent can cause.
type outage struct {
	url, data string
	down      atomic.Bool
	pub       ed25519.PublicKey
}

func newOutage(t *testing.T) *outage {
	t.Helper()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	o := &outage{data: filepath.Join(t.TempDir(), "data"), pub: key.Public().(ed25519.PublicKey)}
	srv, err := server.New(server.Config{Dir: o.data, Origin: "logbook.test", Key: key, Version: "test",
		OpenReads: true, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	real := httptest.NewServer(srv.Handler())
	u, _ := url.Parse(real.URL)
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.down.Load() {
			w.WriteHeader(503)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { front.Close(); real.Close(); srv.Close() })
	o.url = front.URL
	return o
}

// send runs record-step --server for one event of session id, with the
// agent's folder dir.
func (o *outage) send(t *testing.T, dir, id, name, call string) {
	t.Helper()
	p := `{"session_id":"` + id + `","hook_event_name":"` + name + `","tool_name":"Bash","tool_use_id":"` + call + `","tool_input":{"command":"make"},"tool_response":{"stdout":""}}`
	var stderr bytes.Buffer
	env := func(k string) string {
		if k == "LOGBOOK_DIR" {
			return dir
		}
		return ""
	}
	run([]string{"--server", o.url, "--harness", "claude-code"}, strings.NewReader(p), io.Discard, &stderr, env)
	if !o.down.Load() && stderr.Len() > 0 {
		t.Fatalf("%s %s: %s", id, name, stderr.String())
	}
}

// gaps verifies the session's sealed record at level server and returns
// its gaps; logbook-verify's line of gaps must say each of says.
func (o *outage) gaps(t *testing.T, id string, says ...string) gaps.Counts {
	t.Helper()
	rec, err := os.ReadFile(filepath.Join(o.data, id+".record.json"))
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := os.ReadFile(filepath.Join(o.data, id+".record.checkpoint"))
	out := verdict.Run(verdict.Inputs{Record: rec, Checkpoints: [][]byte{cp}, CheckpointKeys: []checkpoint.Key{{Pub: o.pub}}})
	if !out.Result.OK || out.Level != checkpoint.LevelServer {
		t.Fatalf("%s: %+v level %s", id, out.Result, out.Level)
	}
	var human bytes.Buffer
	verdict.WriteHuman(&human, out)
	for _, want := range says {
		if !strings.Contains(human.String(), want) {
			t.Errorf("%s: logbook-verify does not say %q:\n%s", id, want, human.String())
		}
	}
	return out.Result.Gaps
}

// TestLostEventsStayInTheirSession (issue 32, item 4): an event of one
// session lost in an outage is named in that session's record, not in
// the next session that reaches the server from the same folder (the
// hook's count of unsent events was one file for every session).
func TestLostEventsStayInTheirSession(t *testing.T) {
	t.Parallel()
	o, dir := newOutage(t), t.TempDir()
	o.send(t, dir, "sess-a", "SessionStart", "")
	o.down.Store(true)
	o.send(t, dir, "sess-a", "PreToolUse", "a1") // lost
	o.down.Store(false)
	o.send(t, dir, "sess-b", "SessionStart", "")
	o.send(t, dir, "sess-b", "PreToolUse", "b1")
	o.send(t, dir, "sess-b", "PostToolUse", "b1")
	o.send(t, dir, "sess-b", "SessionEnd", "")
	if g := o.gaps(t, "sess-b"); g.Total() != 0 {
		t.Fatalf("session b, which lost nothing, names gaps: %+v", g)
	}
	o.send(t, dir, "sess-a", "PostToolUse", "a1")
	o.send(t, dir, "sess-a", "SessionEnd", "")
	if g := o.gaps(t, "sess-a", "1 event(s) the hook numbered that never reached the server"); g.SequenceHoles != 1 {
		t.Fatalf("session a lost 1 event, its record says %+v", g)
	}
}

// TestDeletedCountStillAGap (issue 32, item 2): after an outage the agent
// deletes every file of the hook's it can write (the count of unsent
// events, the hook's numbering): the record still names a gap, never a
// plain OK.
func TestDeletedCountStillAGap(t *testing.T) {
	t.Parallel()
	o, dir := newOutage(t), t.TempDir()
	o.send(t, dir, "sess-c", "SessionStart", "")
	o.send(t, dir, "sess-c", "PreToolUse", "c1")
	o.send(t, dir, "sess-c", "PostToolUse", "c1")
	o.down.Store(true)
	o.send(t, dir, "sess-c", "PreToolUse", "c2")  // lost
	o.send(t, dir, "sess-c", "PostToolUse", "c2") // lost: a whole call, no pairing gap shows it
	o.down.Store(false)
	names, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, n := range names {
		if !strings.HasSuffix(n, ".log") {
			os.RemoveAll(n)
		}
	}
	o.send(t, dir, "sess-c", "SessionEnd", "")
	g := o.gaps(t, "sess-c", "loss before that cannot be ruled out")
	if g.SequenceResets != 1 || g.Total() != 1 {
		t.Fatalf("the hook's files deleted after an outage: want the reset named, got %+v", g)
	}
	// Editing the count forward instead names holes.
	o.send(t, dir, "sess-d", "SessionStart", "")
	os.WriteFile(filepath.Join(dir, "sess-d.server-seq"), bytes.Repeat([]byte("."), 9), 0o600)
	o.send(t, dir, "sess-d", "SessionEnd", "")
	if g := o.gaps(t, "sess-d"); g.SequenceHoles != 8 {
		t.Fatalf("the count edited forward by 8: %+v", g)
	}
}
