package server_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
)

// TestCommitNamed: POST /v1/commits names the commit in the sessions
// recording in that work tree (cwd /work/project), not in a session of
// another tree nor in a sealed one; the record the server seals holds the
// logbook.commit note and verifies against its checkpoint. A body that is
// not a commit's facts is COMMIT_INVALID.
func TestCommitNamed(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	c := f.ts.Client()
	f.record(t, c, "open", 2, false)
	f.record(t, c, "done", 2, true)
	other := strings.Replace(string(event("elsewhere", "PreToolUse", 0)), "/work/project", "/work/other", 1)
	if code, body := post(t, c, f.ts.URL+"/v1/hooks/claude-code", []byte(other)); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	id := strings.Repeat("ab", 20)
	body := gitstep.CommitBody("/work/project", gitfacts.Commit{ID: id, Tree: strings.Repeat("cd", 20), Parents: []string{strings.Repeat("ef", 20)}, PatchID: strings.Repeat("12", 20)})
	code, got := post(t, c, f.ts.URL+gitstep.CommitRoute, body)
	if code != 200 || got != `{"sessions":["open"]}` {
		t.Fatalf("commit: %d %s", code, got)
	}
	// The commit-msg hook's question: which sessions record there.
	if code, got := post(t, c, f.ts.URL+gitstep.RecordingRoute, gitstep.RepoBody("/work/project")); code != 200 || got != `{"sessions":["open"]}` {
		t.Fatalf("recording: %d %s", code, got)
	}
	f.record(t, c, "open", 0, true)
	if code, got := post(t, c, f.ts.URL+gitstep.RecordingRoute, gitstep.RepoBody("/work/project")); code != 200 || got != `{"sessions":[]}` {
		t.Fatalf("recording after the end: %d %s", code, got)
	}
	code, rec := get(t, f.ts.URL+"/v1/sessions/open/record")
	if code != 200 || !strings.Contains(string(rec), `"event":"logbook.commit"`) || !strings.Contains(string(rec), id) {
		t.Fatalf("record: %d %s", code, rec)
	}
	_, cp := get(t, f.ts.URL+"/v1/sessions/open/record-checkpoint")
	if out := f.verify(rec, cp); !out.Result.OK || out.Level != "server" {
		t.Fatalf("verify: %+v", out.Result)
	}
	for _, bad := range []string{`{}`, `not json`, strings.Replace(string(body), `"/work/project"`, `"work/project"`, 1), strings.Replace(string(body), id, "HEAD", 1)} {
		if code, got := post(t, c, f.ts.URL+gitstep.CommitRoute, []byte(bad)); code != http.StatusBadRequest || !strings.Contains(got, "COMMIT_INVALID") {
			t.Errorf("%s: %d %s", bad, code, got)
		}
	}
}

// BenchmarkCommitAmongSealed: POST /v1/commits on a server whose data
// directory holds one session recording and 0 or 10,000 sealed ones:
// what each commit costs the server. The first reads the directory
// (each session's journal and seal marks stat'ed; no sealed journal is
// read); the others look the sessions up (recordingSet).
func BenchmarkCommitAmongSealed(b *testing.B) {
	for _, sealed := range []int{0, 10000} {
		b.Run(fmt.Sprint(sealed), func(b *testing.B) {
			f := newServer(b, nil)
			c := f.ts.Client()
			f.record(b, c, "open", 2, false)
			data := filepath.Join(f.dir, "data")
			for i := 0; i < sealed; i++ {
				id := fmt.Sprintf("sealed-%05d", i)
				os.WriteFile(filepath.Join(data, id+".steps.jsonl"), []byte("{}\n"), 0o600)
				os.WriteFile(filepath.Join(data, id+".record.json"), []byte("{}\n"), 0o600)
			}
			body := gitstep.CommitBody("/work/project", gitfacts.Commit{ID: strings.Repeat("ab", 20), Tree: strings.Repeat("cd", 20), PatchID: strings.Repeat("12", 20)})
			for b.Loop() {
				if code, got := post(b, c, f.ts.URL+gitstep.CommitRoute, body); code != 200 || got != `{"sessions":["open"]}` {
					b.Fatalf("%d %s", code, got)
				}
			}
		})
	}
}
