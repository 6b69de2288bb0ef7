package gitstep

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/strictjson"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-05-01T10:00:00Z", "GIT_COMMITTER_DATE=2026-05-01T10:00:00Z",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func now() string { return "2026-05-01T10:00:00Z" }

// A session's start names HEAD, the branch and digests of the state; a
// commit while it records is named by id, tree, parents and patch id;
// a sealed session is not named; no text of a file reaches the journal.
func TestStartAndCommit(t *testing.T) {
	repo := t.TempDir()
	dir := filepath.Join(t.TempDir(), "sessions")
	git(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("secret-content-1\n"), 0o644)
	git(t, repo, "add", "a.txt")
	git(t, repo, "commit", "-qm", "first")
	head := git(t, repo, "rev-parse", "HEAD")

	j, err := journalfile.Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(journalfile.Header{Session: "s1"}, []chain.Step{{At: now(), Kind: "note", Summary: "start", Data: strictjson.Obj()}}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("secret-content-2\n"), 0o644)
	if err := OnStart(dir, "s1", repo, now); err != nil {
		t.Fatal(err)
	}
	// A sealed session is not named, nor one that ended (a SessionEnd in
	// any harness's words, the state at a seal) or left a notice that
	// it could not seal; a session that was resumed is.
	os.WriteFile(journalfile.Path(dir, "s2"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "s2.record.json"), nil, 0o600)
	for id, ev := range map[string]string{"s3": `"event":"SessionEnd"`, "s4": `"event":"sessionEnd"`, "s5": `"event":"logbook.git","phase":"seal"`,
		"s6": `"event":"SessionStart"`, "s7": `"event":"SessionStart"`} {
		line := `{"data":{` + ev + `},"kind":"note"}` + "\n"
		os.WriteFile(journalfile.Path(dir, id), []byte(`{"session":"`+id+`"}`+"\n"+line), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "s7.unsealed"), nil, 0o600)
	// Sealed, then written again: Codex's next turn after its Stop's
	// seal, or a resumed session (s8: a record; s9: a notice left by a
	// seal without a key). Their commits are theirs.
	for _, c := range [][2]string{{"s8", ".record.json"}, {"s9", ".unsealed"}} {
		line := `{"data":{"event":"UserPromptSubmit"},"kind":"note"}` + "\n"
		os.WriteFile(journalfile.Path(dir, c[0]), []byte(`{"session":"`+c[0]+`"}`+"\n"+line), 0o600)
		mark := filepath.Join(dir, c[0]+c[1])
		os.WriteFile(mark, nil, 0o600)
		sealed := time.Now().Add(-time.Hour)
		os.Chtimes(mark, sealed, sealed)
	}
	if ids, err := Recording(dir); err != nil || strings.Join(ids, ",") != "s1,s6,s8,s9" {
		t.Fatalf("Recording: %v %v", ids, err)
	}
	os.Remove(journalfile.Path(dir, "s8"))
	os.Remove(journalfile.Path(dir, "s9"))
	os.Remove(journalfile.Path(dir, "s6"))
	git(t, repo, "commit", "-qam", "second")
	named, err := OnCommit(dir, repo, now)
	if err != nil || len(named) != 1 || named[0] != "s1" {
		t.Fatalf("OnCommit: %v %v", named, err)
	}
	data, _ := os.ReadFile(journalfile.Path(dir, "s1"))
	if strings.Contains(string(data), "secret-content") {
		t.Fatal("file content in the journal")
	}
	var start, commit *strictjson.Value
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		v, err := strictjson.Parse([]byte(line), strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		switch ev, _ := v.Get("data").GetString("event"); ev {
		case HeadEvent:
			start = v.Get("data")
		case CommitEvent:
			commit = v.Get("data")
		}
	}
	if start == nil || commit == nil {
		t.Fatalf("steps missing: %s", data)
	}
	if c, _ := start.GetString("commit"); c != head {
		t.Errorf("start commit %s, want %s", c, head)
	}
	if b, _ := start.GetString("branch"); b != "main" {
		t.Errorf("branch %q", b)
	}
	if d := start.Get("dirty"); d == nil || d.Kind != strictjson.True {
		t.Errorf("dirty not true: %+v", d)
	}
	c2 := git(t, repo, "rev-parse", "HEAD")
	if c, _ := commit.GetString("commit"); c != c2 {
		t.Errorf("commit %s, want %s", c, c2)
	}
	if p := commit.Get("parents"); len(p.Items) != 1 || p.Items[0].Str != head {
		t.Errorf("parents %+v", p)
	}
	want, err := gitfacts.PatchID(repo, c2)
	if got, _ := commit.GetString("patchId"); err != nil || got != want || !gitfacts.IsID(got) {
		t.Errorf("patchId %q, want %q (%v)", got, want, err)
	}
}

// Outside a work tree a session's start records nothing and fails not.
func TestStartOutsideRepo(t *testing.T) {
	dir := t.TempDir()
	if err := OnStart(dir, "s1", t.TempDir(), now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(journalfile.Path(dir, "s1")); err == nil {
		t.Fatal("a journal was made")
	}
}

// StartHook looks at the session's own cwd (the payload's): a session
// whose cwd is no work tree gets no git note, whatever directory the
// hook runs in.
func TestStartHookUsesTheSessionsCwd(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init", "-q", "-b", "main")
	dir := t.TempDir()
	for id, cwd := range map[string]string{"in": repo, "out": t.TempDir(), "gone": filepath.Join(t.TempDir(), "gone")} {
		j, err := journalfile.Open(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(journalfile.Header{Session: id, Cwd: cwd}, []chain.Step{{At: now(), Kind: "note", Summary: "start", Data: strictjson.Obj()}}); err != nil {
			t.Fatal(err)
		}
		j.Close()
		var reported []string
		StartHook(dir, id, func(string) string { return "" }, func(m string) { reported = append(reported, m) })
		data, _ := os.ReadFile(journalfile.Path(dir, id))
		if got := strings.Contains(string(data), `"event":"logbook.git"`); got != (id == "in") || len(reported) > 0 {
			t.Errorf("%s: git note %v, reported %v", id, got, reported)
		}
	}
}

// A journal whose lock stays held does not hang the person's git
// commit: record-step commit gives up after commitWait, says so, and
// exits 0.
func TestCommitHookDoesNotWaitForever(t *testing.T) {
	repo := t.TempDir()
	dir := filepath.Join(t.TempDir(), "sessions")
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	j, err := journalfile.Open(dir, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(journalfile.Header{Session: "s1"}, []chain.Step{{At: now(), Kind: "note", Summary: "start", Data: strictjson.Obj()}}); err != nil {
		t.Fatal(err)
	}
	defer j.Close() // held until the test ends
	t.Chdir(repo)
	old := commitWait
	commitWait = 50 * time.Millisecond
	defer func() { commitWait = old }()
	var stdout, stderr strings.Builder
	env := map[string]string{"LOGBOOK_DIR": dir, "LOGBOOK_NOW": now()}
	if code := CommitHook(nil, &stdout, &stderr, func(k string) string { return env[k] }); code != 0 || !strings.Contains(stderr.String(), "stayed locked") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
