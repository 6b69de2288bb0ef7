package server_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/server"
)

// postSeq sends one event with the hook's number (0: none), as
// record-step --server does.
func postSeq(t *testing.T, f *fixture, body []byte, seq int) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.ts.URL+"/v1/hooks/claude-code", bytes.NewReader(body))
	if seq > 0 {
		req.Header.Set("X-Logbook-Seq", strconv.Itoa(seq))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func mustSeq(t *testing.T, f *fixture, body []byte, seq int) {
	t.Helper()
	if code, b := postSeq(t, f, body, seq); code != 200 {
		t.Fatalf("seq %d: %d %s", seq, code, b)
	}
}

// sealedGaps verifies the session's sealed record at level server with
// the checkpoint it was sealed with, and returns its gaps.
func (f *fixture) sealedGaps(t *testing.T, id string) gaps.Counts {
	t.Helper()
	code, rec := get(t, f.ts.URL+"/v1/sessions/"+id+"/record")
	if code != 200 {
		t.Fatalf("%s: %d %s", id, code, rec)
	}
	_, cp := get(t, f.ts.URL+"/v1/sessions/"+id+"/record-checkpoint")
	o := f.verify(rec, cp)
	if !o.Result.OK || o.Level != checkpoint.LevelServer {
		t.Fatalf("%s: %+v", id, o.Result)
	}
	return o.Result.Gaps
}

// TestSeqHoles (issue 32, item 2): numbers that arrive out of order
// (parallel hooks) are no gap; a number never received is named at the
// seal, in the record it signs.
func TestSeqHoles(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	mustSeq(t, f, event("q1", "SessionStart", 0), 1)
	mustSeq(t, f, event("q1", "PostToolUse", 1), 3)
	mustSeq(t, f, event("q1", "PreToolUse", 1), 2)
	// 4 never arrives.
	mustSeq(t, f, event("q1", "PreToolUse", 2), 5)
	mustSeq(t, f, event("q1", "PostToolUse", 2), 6)
	mustSeq(t, f, event("q1", "SessionEnd", 0), 7)
	if g := f.sealedGaps(t, "q1"); g.SequenceHoles != 1 || g.Total() != 1 {
		t.Fatalf("want 1 sequence hole and nothing else: %+v", g)
	}
	if code, b := postSeq(t, f, event("q1", "PreToolUse", 3), 0); code != 200 {
		t.Fatalf("an event without a number: %d %s", code, b)
	}
	if code, b := postSeq(t, f, event("q1", "PreToolUse", 3), -1); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	req, _ := http.NewRequest("POST", f.ts.URL+"/v1/hooks/claude-code", bytes.NewReader(event("q1", "PreToolUse", 3)))
	req.Header.Set("X-Logbook-Seq", "007")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 400 {
		t.Fatalf("a number with a leading zero: %v %v", resp, err)
	}
}

// TestSeqAcrossRestart: what the server saw of a session's numbers
// survives the session's close at SessionEnd and a restart, so a resumed
// session is no gap; a server that stopped without saving it (killed)
// cannot check the next number, and says so.
func TestSeqAcrossRestart(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	mustSeq(t, f, event("q2", "SessionStart", 0), 1)
	mustSeq(t, f, event("q2", "SessionEnd", 0), 2)
	f.ts.Close()
	f.srv.Close()
	restart := func() *fixture {
		g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir = f.opts.Dir })
		if _, err := g.srv.Resume(); err != nil {
			t.Fatal(err)
		}
		g.pub = f.pub
		return g
	}
	g := restart()
	mustSeq(t, g, event("q2", "SessionStart", 0), 3)
	mustSeq(t, g, event("q2", "SessionEnd", 0), 4)
	if gp := g.sealedGaps(t, "q2"); gp.SequenceHoles+gp.SequenceResets != 0 {
		t.Fatalf("resumed after a restart: %+v", gp)
	}
	mustSeq(t, g, event("q2", "SessionStart", 0), 5)
	g.ts.Close()
	g.srv.Close()
	os.Remove(filepath.Join(f.opts.Dir, "q2.hookseq")) // what a kill -9 leaves: nothing saved
	h := restart()
	mustSeq(t, h, event("q2", "SessionEnd", 0), 6)
	if gp := h.sealedGaps(t, "q2"); gp.SequenceResets != 1 {
		t.Fatalf("numbers not checkable after a kill: %+v", gp)
	}
}

// TestRefusedNamed (issue 32, item 1): the disk fills while a session
// runs; the server refuses its events (WRITE_FAILED), and once it can
// write again the session's record names how many, with or without the
// hook's numbers (Claude Code's HTTP hooks send none). Not parallel: it
// sets journalfile.FS.
func TestRefusedNamed(t *testing.T) {
	saved := journalfile.FS
	defer func() { journalfile.FS = saved }()
	f := newServer(t, nil)
	for _, numbered := range []bool{false, true} {
		id, n := "q3", 0
		if numbered {
			id = "q3n"
		}
		seq := func() int {
			if !numbered {
				return 0
			}
			n++
			return n
		}
		mustSeq(t, f, event(id, "SessionStart", 0), seq())
		mustSeq(t, f, event(id, "PreToolUse", 1), seq())
		journalfile.FS.Write = func(f *os.File, b []byte) (int, error) {
			k, _ := f.Write(b[:len(b)/2])
			return k, syscall.ENOSPC
		}
		for i := 0; i < 3; i++ {
			code, b := postSeq(t, f, event(id, "PostToolUse", 1), seq())
			if code != 500 || !strings.Contains(b, "WRITE_FAILED") {
				t.Fatalf("disk full: %d %s", code, b)
			}
		}
		journalfile.FS = saved
		mustSeq(t, f, event(id, "PostToolUse", 1), seq())
		mustSeq(t, f, event(id, "SessionEnd", 0), seq())
		if g := f.sealedGaps(t, id); g.ServerRefused != 3 || g.Total() != 3 {
			t.Fatalf("numbered %v: want the 3 refused events named and nothing else: %+v", numbered, g)
		}
	}
}

// TestNewSessionDiskLow: under --min-free the server refuses a new
// session, loudly (DISK_LOW, 507, naming the flag), and records the
// sessions already open.
func TestNewSessionDiskLow(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	mustSeq(t, f, event("q4", "SessionStart", 0), 0)
	f.ts.Close()
	f.srv.Close()
	g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir, c.MinFree = f.opts.Dir, 1<<62 })
	mustSeq(t, g, event("q4", "PreToolUse", 1), 0)
	code, b := postSeq(t, g, event("q5", "SessionStart", 0), 0)
	if code != 507 || !strings.Contains(b, `"DISK_LOW"`) || !strings.Contains(b, "--min-free") {
		t.Fatalf("a new session on a low disk: %d %s", code, b)
	}
	if _, err := os.Stat(journalfile.Path(f.opts.Dir, "q5")); err == nil {
		t.Fatal("the refused session has a journal")
	}
}
