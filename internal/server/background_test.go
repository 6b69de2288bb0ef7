package server_test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/server"
)

// denyEcho7 is a gate whose one rule denies the Bash call `echo 7`.
func denyEcho7(t *testing.T) *gate.Gate {
	t.Helper()
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","name":"t","rules":[{"name":"no-echo-7","when":"tool == 'Bash' && input.command == 'echo 7'","decision":"deny","reason":"not 7"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return &gate.Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: p}}
}

// TestFsyncBackground: with --fsync background a gated call is answered
// (its decision included) while the fsync of its steps has not ended;
// the steps are on the journal, gate step first; the checkpoint is served
// only once they are synced; once a write older than the window is not on
// disk the answers wait; after a failed background fsync every event is
// answered SYNC_FAILED, and a denied call is still denied.
func TestFsyncBackground(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var synced atomic.Int64
	var failing atomic.Bool
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Fsync, c.FsyncWindow, c.Gate = server.FsyncBackground, time.Hour, denyEcho7(t)
		c.SyncPath = func(p string) error {
			if isDir(p) {
				return durable.SyncPath(p) // the write-ahead log's segment made at start
			}
			<-release
			if failing.Load() {
				return errors.New("EIO")
			}
			synced.Add(1)
			return durable.SyncPath(p)
		}
	})
	hook := f.ts.URL + "/v1/hooks/claude-code"
	if code, b := post(t, http.DefaultClient, hook, event("bg-1", "PreToolUse", 1)); code != 200 || b != "" {
		t.Fatalf("allowed call: %d %q", code, b)
	}
	code, b := post(t, http.DefaultClient, hook, event("bg-1", "PreToolUse", 7))
	if code != 200 || !strings.Contains(b, `"permissionDecision":"deny"`) {
		t.Fatalf("denied call: %d %q", code, b)
	}
	if synced.Load() != 0 {
		t.Fatal("answered after the fsync: not in the background")
	}
	steps := readLines(t, journalfile.Path(f.opts.Dir, "bg-1"))
	if n := len(steps); n < 5 || !strings.Contains(steps[n-2], `"kind":"gate"`) || !strings.Contains(steps[n-2], `"decision":"deny"`) || !strings.Contains(steps[n-1], `"echo 7"`) {
		t.Fatalf("journal before the fsync ends: %q", steps)
	}
	got := make(chan int, 1)
	go func() { c, _ := get(t, f.ts.URL+"/v1/sessions/bg-1/checkpoint"); got <- c }()
	// A request that asks for a signed answer (a nonce) waits for its
	// fsync: the signature states the size and tip.
	signed := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("POST", hook, bytes.NewReader(event("bg-1", "PostToolUse", 2)))
		req.Header.Set(hookpost.NonceHeader, strings.Repeat("ab", hookpost.NonceLen/2))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			signed <- nil
			return
		}
		resp.Body.Close()
		signed <- resp
	}()
	select {
	case c := <-got:
		t.Fatalf("checkpoint served (%d) before its steps were synced", c)
	case <-signed:
		t.Fatal("a signed answer given before its step was synced")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if c := <-got; c != 200 {
		t.Fatalf("checkpoint: %d", c)
	}
	if resp := <-signed; resp == nil || resp.StatusCode != 200 || resp.Header.Get(hookpost.SignatureHeader) == "" {
		t.Fatalf("signed answer: %+v", resp)
	}
	if synced.Load() == 0 {
		t.Fatal("no fsync in the background")
	}

	// A failed fsync nobody waited for: every later answer says so, and
	// the denied call is still denied.
	failing.Store(true)
	if code, b := post(t, http.DefaultClient, hook, event("bg-1", "PostToolUse", 1)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	code, cb := get(t, f.ts.URL+"/v1/sessions/bg-1/checkpoint") // ends that batch
	if e := decodeErr(t, string(cb)); code != 500 || e.Error != "SYNC_FAILED" {
		t.Fatalf("checkpoint after a failed fsync: %d %s", code, cb)
	}
	failing.Store(false)
	code, b = post(t, http.DefaultClient, hook, event("bg-1", "PreToolUse", 2))
	if e := decodeErr(t, b); code != 500 || e.Error != "SYNC_FAILED" {
		t.Fatalf("after a failed background fsync: %d %s", code, b)
	}
	code, b = post(t, http.DefaultClient, hook, event("bg-2", "PreToolUse", 7))
	if code != 200 || !strings.Contains(b, `"permissionDecision":"deny"`) {
		t.Fatalf("denied call after a failed fsync: %d %q", code, b)
	}
}

// TestFsyncBackgroundWindow: an fsync that does not end within the
// window holds the next answers until it does.
func TestFsyncBackgroundWindow(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Fsync, c.FsyncWindow = server.FsyncBackground, 20*time.Millisecond
		c.SyncPath = func(p string) error {
			if !isDir(p) {
				<-release
			}
			return durable.SyncPath(p)
		}
	})
	hook := f.ts.URL + "/v1/hooks/claude-code"
	if code, b := post(t, http.DefaultClient, hook, event("bgw", "PreToolUse", 1)); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	time.Sleep(40 * time.Millisecond)
	got := make(chan int, 1)
	go func() { c, _ := post(t, http.DefaultClient, hook, event("bgw", "PostToolUse", 1)); got <- c }()
	select {
	case c := <-got:
		t.Fatalf("answered (%d) while a write older than the window was not on disk", c)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if c := <-got; c != 200 {
		t.Fatal(c)
	}
	if _, err := server.New(server.Config{Dir: t.TempDir(), Origin: "x", Key: f.key, Fsync: server.FsyncBackground, FsyncWindow: -1}); err == nil {
		t.Fatal("a negative window accepted")
	}
	if _, err := os.Stat(journalfile.Path(f.opts.Dir, "bgw")); err != nil {
		t.Fatal(err)
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
