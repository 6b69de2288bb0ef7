package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
)

// TestReplicaCommitAcross: with --db, a commit sent to one replica is
// named in a session whose events went to another (the open sessions of
// a work tree are the database's), committed with a turn as an event is:
// the record sealed on a third replica holds the note and verifies. A
// sealed session, or one in another tree, is not named.
func TestReplicaCommitAcross(t *testing.T) {
	rs := replicas(t, 3)
	rs[0].record(t, http.DefaultClient, "rc-open", 2, false)
	rs[0].record(t, http.DefaultClient, "rc-done", 2, true)
	other := strings.Replace(string(event("rc-elsewhere", "PreToolUse", 0)), "/work/project", "/work/other", 1)
	if code, body := post(t, http.DefaultClient, rs[0].ts.URL+"/v1/hooks/claude-code", []byte(other)); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	id := strings.Repeat("ab", 20)
	body := gitstep.CommitBody("/work/project", gitfacts.Commit{ID: id, Tree: strings.Repeat("cd", 20), Parents: []string{strings.Repeat("ef", 20)}, PatchID: strings.Repeat("12", 20)})
	if code, got := post(t, http.DefaultClient, rs[1].ts.URL+gitstep.CommitRoute, body); code != 200 || got != `{"sessions":["rc-open"]}` {
		t.Fatalf("commit on another replica: %d %s", code, got)
	}
	if code, got := post(t, http.DefaultClient, rs[2].ts.URL+gitstep.RecordingRoute, gitstep.RepoBody("/work/project")); code != 200 || got != `{"sessions":["rc-open"]}` {
		t.Fatalf("recording on another replica: %d %s", code, got)
	}
	// The session goes on where the events went, and ends on a third.
	rs[0].record(t, http.DefaultClient, "rc-open", 2, false)
	rs[2].record(t, http.DefaultClient, "rc-open", 0, true)
	code, rec := get(t, rs[0].ts.URL+"/v1/sessions/rc-open/record")
	if code != 200 || strings.Count(string(rec), `"event":"logbook.commit"`) != 1 || !strings.Contains(string(rec), id) {
		t.Fatalf("record: %d, the commit's note: %d", code, strings.Count(string(rec), `"event":"logbook.commit"`))
	}
	_, cp := get(t, rs[1].ts.URL+"/v1/sessions/rc-open/record-checkpoint")
	if o := rs[1].verify(rec, cp); !o.Result.OK || o.Level != "server" {
		t.Fatalf("verify: %+v", o.Result)
	}
	if code, got := post(t, http.DefaultClient, rs[1].ts.URL+gitstep.RecordingRoute, gitstep.RepoBody("/work/project")); code != 200 || got != `{"sessions":[]}` {
		t.Fatalf("recording after the end: %d %s", code, got)
	}
}
