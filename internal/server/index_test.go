package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/index"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/wal"
)

// indexed is a server with an index in its temporary folder, a read
// token, and a clock the test moves.
func indexed(t *testing.T) (*fixture, *index.Index, *time.Time) {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var ix *index.Index
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		var err error
		ix, err = index.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		c.Index, c.ReadToken, c.OpenReads = ix, "rt", false
		c.Now = func() time.Time { return now }
	})
	return f, ix, &now
}

func call(t *testing.T, method, url, token, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func search(t *testing.T, f *fixture, query string) server.SearchAnswer {
	t.Helper()
	code, b := call(t, "GET", f.ts.URL+"/v1/sessions?"+query, "rt", "")
	var a server.SearchAnswer
	if code != 200 || json.Unmarshal(b, &a) != nil {
		t.Fatalf("%s: %d %s", query, code, b)
	}
	return a
}

func sessionIDs(a server.SearchAnswer) []string {
	var out []string
	for _, s := range a.Sessions {
		out = append(out, s.ID)
	}
	return out
}

// TestIndexFeed: every recorded event reaches the index; the search
// route, its pages and filters, coverage, and the refusals.
func TestIndexFeed(t *testing.T) {
	f, _, now := indexed(t)
	c := f.ts.Client()
	f.record(t, c, "s-a", 4, true)
	*now = now.Add(time.Hour)
	f.record(t, c, "s-b", 2, false)
	post(t, c, f.ts.URL+"/v1/hooks/claude-code?event=x", []byte(`{"session_id":"s-c","hook_event_name":"Notification"}`))
	f.srv.IndexFlush()

	a := search(t, f, "")
	if got := sessionIDs(a); !slices.Equal(got, []string{"s-c", "s-b", "s-a"}) {
		t.Fatalf("newest first: %v", got)
	}
	s := a.Sessions[2]
	if s.Steps != 5 || !s.Ended || s.Verdict != index.VerdictSealed || !slices.Equal(s.Tools, []string{"Bash"}) || s.Repo != "project" || s.Level != "server" {
		t.Errorf("s-a: %+v", s)
	}
	if a.Sessions[1].Verdict != index.VerdictOpen || a.Sessions[1].Ended {
		t.Errorf("s-b: %+v", a.Sessions[1])
	}
	if got := sessionIDs(search(t, f, "tool=Bash")); !slices.Equal(got, []string{"s-b", "s-a"}) {
		t.Errorf("tool=Bash: %v", got)
	}
	// Pages of one, through the cursor.
	p1 := search(t, f, "limit=1&tool=Bash")
	p2 := search(t, f, "limit=1&tool=Bash&cursor="+p1.Next)
	if sessionIDs(p1)[0] != "s-b" || sessionIDs(p2)[0] != "s-a" || p2.Next != "" {
		t.Errorf("pages: %v %v %q", sessionIDs(p1), sessionIDs(p2), p2.Next)
	}
	// sort=: the index's other orders, paged through their own cursors.
	if got := sessionIDs(search(t, f, "sort=oldest")); !slices.Equal(got, []string{"s-a", "s-b", "s-c"}) {
		t.Errorf("sort=oldest: %v", got)
	}
	if got := sessionIDs(search(t, f, "sort=steps")); len(got) != 3 || got[0] != "s-a" || got[2] != "s-c" {
		t.Errorf("sort=steps: %v", got)
	}
	var paged []string
	for q := "sort=oldest&limit=1"; ; {
		a := search(t, f, q)
		paged = append(paged, sessionIDs(a)...)
		if a.Next == "" || len(paged) > 3 {
			break
		}
		q = "sort=oldest&limit=1&cursor=" + a.Next
	}
	if !slices.Equal(paged, []string{"s-a", "s-b", "s-c"}) {
		t.Errorf("sort=oldest, pages of one: %v", paged)
	}
	stepsNext := search(t, f, "sort=steps&limit=1").Next
	for q, want := range map[string]int{"limit=x": 400, "cursor=%21": 400, "since=yesterday": 400, "limit=100000": 400,
		"sort=size": 400, "sort=oldest&cursor=" + stepsNext: 400, "cursor=" + stepsNext: 400, "sort=repo&tool=Bash": 200} {
		if code, b := call(t, "GET", f.ts.URL+"/v1/sessions?"+q, "rt", ""); code != want {
			t.Errorf("%s: %d %s", q, code, b)
		}
	}
	// The hook token does not read the index.
	if code, _ := call(t, "GET", f.ts.URL+"/v1/sessions", "", ""); code != 401 {
		t.Errorf("no token: %d", code)
	}

	// Coverage: s-b and s-c stopped without a SessionEnd an hour ago;
	// "d9" never sent anything.
	*now = now.Add(2 * time.Hour)
	code, b := call(t, "GET", f.ts.URL+"/v1/coverage?days=1&quiet=1h&developer=d9", "rt", "")
	var cv server.CoverageAnswer
	if code != 200 || json.Unmarshal(b, &cv) != nil {
		t.Fatalf("coverage: %d %s", code, b)
	}
	if len(cv.Silent) != 1 || cv.Silent[0].Developer != "d9" || len(cv.Unended) != 2 || len(cv.Outages) != 0 {
		t.Errorf("coverage: %s", b)
	}
}

// TestRetentionTombstone: a policy, a held session that stops the run
// with nothing deleted, then the run that replaces the records by
// tombstones the verifier names; a later event for a deleted session is
// refused, and a reindex finds the tombstones.
func TestRetentionTombstone(t *testing.T) {
	f, ix, now := indexed(t)
	c := f.ts.Client()
	f.record(t, c, "old-1", 2, true)
	f.record(t, c, "old-2", 2, true)
	*now = now.Add(40 * 24 * time.Hour)
	f.record(t, c, "new-1", 2, true)
	f.srv.IndexFlush()

	if code, b := call(t, "POST", f.ts.URL+"/v1/retention/run", "rt", ""); code != 409 || !bytes.Contains(b, []byte("NO_RETENTION")) {
		t.Errorf("no policy: %d %s", code, b)
	}
	if code, b := call(t, "PUT", f.ts.URL+"/v1/retention", "rt", `{"keepDays": 30}`); code != 200 || !bytes.Contains(b, []byte(`"keepDays":30`)) {
		t.Fatalf("policy: %d %s", code, b)
	}
	if code, b := call(t, "PUT", f.ts.URL+"/v1/sessions/old-2/hold", "rt", `{"reason": "case 7"}`); code != 200 {
		t.Fatalf("hold: %d %s", code, b)
	}
	code, b := call(t, "POST", f.ts.URL+"/v1/retention/run", "rt", "")
	if code != 409 || !bytes.Contains(b, []byte("SESSION_HELD")) || !bytes.Contains(b, []byte("old-2")) {
		t.Fatalf("held: %d %s", code, b)
	}
	for _, id := range []string{"old-1", "old-2"} {
		if _, err := os.Stat(filepath.Join(f.opts.Dir, id+".steps.jsonl")); err != nil {
			t.Fatalf("%s deleted by a refused run: %v", id, err)
		}
	}
	if code, _ := call(t, "DELETE", f.ts.URL+"/v1/sessions/old-2/hold", "rt", ""); code != 200 {
		t.Fatal("release")
	}
	code, b = call(t, "POST", f.ts.URL+"/v1/retention/run", "rt", `{"reason": "kept 30 days"}`)
	var run server.RunAnswer
	if code != 200 || json.Unmarshal(b, &run) != nil || !slices.Equal(run.Deleted, []string{"old-1", "old-2"}) {
		t.Fatalf("run: %d %s", code, b)
	}
	rec, err := os.ReadFile(filepath.Join(f.opts.Dir, "old-1.record.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := f.verify(rec)
	if out.Result.OK || out.Result.Code != "TOMBSTONED" || !strings.Contains(out.Result.Detail, "kept 30 days") {
		t.Errorf("verify: %+v", out.Result)
	}
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "old-1.steps.jsonl")); err == nil {
		t.Error("the journal stays")
	}
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "old-1.checkpoints")); err != nil {
		t.Errorf("the checkpoints went: %v", err)
	}
	// What a crash now leaves of the write-ahead log (the segment in
	// use, with the removal) is replayed at the end: old-1's journal is
	// not made again from older entries.
	left := map[string][]byte{}
	segs, _ := filepath.Glob(filepath.Join(f.opts.Dir, wal.Subdir, "*.wal"))
	for _, p := range segs {
		left[p], _ = os.ReadFile(p)
	}
	if code, b := post(t, c, f.ts.URL+"/v1/hooks/claude-code", event("old-1", "PreToolUse", 9)); code != 500 || !strings.Contains(b, "WRITE_FAILED") || !strings.Contains(b, "deleted under retention") {
		t.Errorf("an event for a deleted session: %d %s", code, b)
	}
	if got := sessionIDs(search(t, f, "")); !slices.Equal(got, []string{"new-1", "old-2", "old-1"}) {
		t.Errorf("after: %v", got)
	}

	// Rebuilt from the directory: the same entries, new-1's from its
	// record alone once its journal is gone.
	if err := os.Remove(filepath.Join(f.opts.Dir, "new-1.steps.jsonl")); err != nil {
		t.Fatal(err)
	}
	n, err := server.Reindex(context.Background(), f.opts, "server")
	if err != nil || n != 3 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	e, _ := ix.Get(context.Background(), "", "old-1")
	if e == nil || !e.Tombstone || e.Steps != 3 || e.StartMS == 0 {
		t.Errorf("reindexed tombstone: %+v", e)
	}
	e, _ = ix.Get(context.Background(), "", "new-1")
	if e == nil || e.Steps != 3 || e.Verdict != index.VerdictSealed {
		t.Errorf("reindexed: %+v", e)
	}
	f.ts.Close()
	f.srv.Close()
	for p, b := range left {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := wal.Replay(f.opts.Dir, wal.Options{}); err != nil || len(left) == 0 || st.Removed+st.Skipped == 0 {
		t.Errorf("replay after the deletion: %+v %v (%d segments)", st, err, len(left))
	}
	if _, err := os.Stat(filepath.Join(f.opts.Dir, "old-1.steps.jsonl")); err == nil {
		t.Error("the deleted journal made again by the replay")
	}
	_ = verdict.Outcome{}
}

// TestIndexSeams: the fleet identity's seams. IndexWho names each
// session's tenant and developer from its steps (here the cwd stands for
// the attested actor); Authorize's roles: a developer finds only their
// own sessions, an auditor every one of the tenant but no retention, and
// another tenant nothing.
func TestIndexSeams(t *testing.T) {
	role := map[string]server.Caller{
		"alice":   {Tenant: "acme", Developer: "alice", Role: server.RoleDeveloper},
		"auditor": {Tenant: "acme", Role: server.RoleAuditor},
		"other":   {Tenant: "globex", Role: server.RoleAdmin},
	}
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		ix, err := index.Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		c.Index = ix
		c.IndexWho = func(step *strictjson.Value) (string, string, string, bool) {
			id, _ := step.Get("data").GetString("event")
			if id == "" {
				return "", "", "", false
			}
			return "acme", map[bool]string{true: "alice", false: "bob"}[strings.Contains(step.Get("summary").Str, "echo 0")], "m1", true
		}
		c.Authorize = func(r *http.Request, action string) (server.Caller, error) {
			who := role[r.Header.Get("X-Test-Who")]
			if action == server.ActAdmin && who.Role != server.RoleAdmin || action == server.ActCoverage && who.Role == server.RoleDeveloper {
				return server.Caller{}, server.ErrForbidden
			}
			return who, nil
		}
	})
	c := f.ts.Client()
	post(t, c, f.ts.URL+"/v1/hooks/claude-code", event("s-alice", "PreToolUse", 0))
	post(t, c, f.ts.URL+"/v1/hooks/claude-code", event("s-bob", "PreToolUse", 1))
	f.srv.IndexFlush()
	as := func(who, method, path string) (int, []byte) {
		body := `{"keepDays": 1}`
		if strings.HasSuffix(path, "/hold") {
			body = `{"reason": "case 7"}`
		}
		req, _ := http.NewRequest(method, f.ts.URL+path, strings.NewReader(body))
		req.Header.Set("X-Test-Who", who)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	for _, c := range []struct {
		who, method, path string
		code              int
		has, hasnt        string
	}{
		{"alice", "GET", "/v1/sessions", 200, "s-alice", "s-bob"},
		{"alice", "GET", "/v1/sessions?developer=bob", 403, "FORBIDDEN", ""},
		{"alice", "GET", "/v1/coverage", 403, "FORBIDDEN", ""},
		{"alice", "PUT", "/v1/retention", 403, "FORBIDDEN", ""},
		{"alice", "PUT", "/v1/sessions/s-alice/hold", 403, "FORBIDDEN", ""},
		{"auditor", "GET", "/v1/sessions", 200, "s-bob", ""},
		{"auditor", "GET", "/v1/coverage", 200, "silent", ""},
		{"auditor", "POST", "/v1/retention/run", 403, "FORBIDDEN", ""},
		{"other", "GET", "/v1/sessions", 200, `"sessions":[]`, "s-alice"},
		{"other", "PUT", "/v1/sessions/s-alice/hold", 404, "SESSION_UNKNOWN", ""},
	} {
		code, b := as(c.who, c.method, c.path)
		if code != c.code || !bytes.Contains(b, []byte(c.has)) || c.hasnt != "" && bytes.Contains(b, []byte(c.hasnt)) {
			t.Errorf("%s %s %s: %d %s", c.who, c.method, c.path, code, b)
		}
	}
	code, b := as("auditor", "GET", "/v1/sessions?developer=alice")
	if code != 200 || !bytes.Contains(b, []byte(`"developer":"alice","machine":"m1"`)) || !bytes.Contains(b, []byte(`"tenant":"acme"`)) {
		t.Errorf("the who seam: %d %s", code, b)
	}
}
