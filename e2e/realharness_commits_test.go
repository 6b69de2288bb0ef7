package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/tamper"
)

// commitLine is one line of logbook-verify --commits --json.
type commitLine struct {
	Commit  string  `json:"commit"`
	OK      bool    `json:"ok"`
	Status  string  `json:"status"`
	Code    *string `json:"code"`
	Session string  `json:"session"`
	Level   string  `json:"level"`
	By      string  `json:"by"`
	Detail  string  `json:"detail"`
}

// TestRealClaudeCodeCommits (docs/commits.md): the real Claude Code CLI,
// driven by the fake model, in a real git repository whose sessions a
// logbook-server records (record-step install --server --trailer): the
// agent makes two commits through its Bash tool, the person makes one by
// hand while the session is open (the test runs git commit itself while
// the agent's third Bash call waits for it), and one is made after the
// session, recording off. The server names the three in the session and
// seals; logbook-seal --from-server fetches the record, its checkpoint
// and its proof of logging and writes the notes; logbook-verify --commits
// names the three with the session at level server and the fourth
// UNBOUND. Then, by hand: a rebase onto a moved base, a cherry-pick, a
// squash merge and two --amends each give commits.md's answer; a trailer
// copied to another change, a note whose proof is another record's, and
// the record re-signed by another key are each refused with their code.
func TestRealClaudeCodeCommits(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	if out, err := exec.Command(filepath.Join(bin, "logbook-server"), "--new-token", token).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	tokb, _ := os.ReadFile(token)
	tok := strings.TrimSpace(string(tokb))
	s := startServer(t, freePort(t), filepath.Join(dir, "data"), newServerKey(t, dir), nil, "--token-file", token, "--log-checkpoint-interval", "200ms")
	proj, records, home, sync := filepath.Join(dir, "proj"), filepath.Join(dir, "records"), t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(proj, ".logbook", "bin"), 0o755)
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=",
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"LOGBOOK_SERVER_TOKEN="+tok, "LOGBOOK_SERVER_READ_TOKEN="+s.readToken)
	run := func(prog string, args ...string) string {
		t.Helper()
		cmd := exec.Command(prog, args...)
		cmd.Dir, cmd.Env = proj, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(prog), args, err, out)
		}
		return string(out)
	}
	git := func(args ...string) string { return strings.TrimSpace(run("git", args...)) }
	write := func(name, text string) { os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644) }
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "base")
	for _, c := range []string{"record-step", "logbook-install"} {
		b, _ := os.ReadFile(filepath.Join(bin, c))
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	out := run(filepath.Join(proj, ".logbook", "bin", "record-step"), "install", "--harness", "claude-code", "--project", proj, "--server", s.url, "--trailer")
	if !strings.Contains(out, "post-commit: names each commit") || !strings.Contains(out, "commit-msg: adds a Logbook-Record") {
		t.Fatalf("install:\n%s", out)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "logbook hooks")
	git("tag", "start")

	// The agent's two commits, then a Bash call that waits while the
	// person commits by hand.
	ready, goOn := filepath.Join(sync, "ready"), filepath.Join(sync, "go")
	bash := func(id, cmd string) fakemodel.ToolCall {
		in, _ := json.Marshal(map[string]string{"command": cmd, "description": id})
		return fakemodel.ToolCall{ID: id, Name: "Bash", Input: in}
	}
	script := &fakemodel.Script{Turns: []fakemodel.Turn{
		{Text: "First.", Calls: []fakemodel.ToolCall{bash("toolu_c1", "printf 'one\\n' > one.txt && git add one.txt && git commit -q -m 'agent: one'")}},
		{Text: "Second.", Calls: []fakemodel.ToolCall{bash("toolu_c2", "printf 'two\\n' > two.txt && git add two.txt && git commit -q -m 'agent: two'")}},
		{Text: "Waiting.", Calls: []fakemodel.ToolCall{bash("toolu_wait", "touch "+ready+" && i=0; while [ ! -e "+goOn+" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done")}},
	}}
	model, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	byHand := make(chan string, 1)
	go func() {
		defer os.WriteFile(goOn, nil, 0o644)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(ready); err == nil {
				write("byhand.txt", "by hand\n")
				cmd := exec.Command("sh", "-c", "git add byhand.txt && git commit -q -m 'by hand: three'")
				cmd.Dir, cmd.Env = proj, env
				b, _ := cmd.CombinedOutput()
				byHand <- string(b)
				return
			}
		}
		byHand <- "the agent's waiting call never came"
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "make the commits", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(env, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+model.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	cout, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, cout)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal(cout, &res); res.SessionID == "" {
		t.Fatalf("no session id in %s", cout)
	}
	id := res.SessionID
	if hand := <-byHand; !strings.Contains(hand, "logbook: commit named in session "+id) {
		t.Fatalf("the commit by hand: %q", hand)
	}
	// The server sealed at SessionEnd; its log proves the record soon.
	proofOf := func(session string) []byte {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if b, err := os.ReadFile(filepath.Join(s.data, session+".record.tlog-proof")); err == nil {
				return b
			}
		}
		t.Fatalf("no proof of logging for %s:\n%s", session, s.stderr)
		return nil
	}
	proofOf(id)
	write("after.txt", "after\n")
	if out := run("git", "add", "after.txt"); out != "" {
		t.Fatal(out)
	}
	if out := run("git", "commit", "-q", "-m", "recording off: four"); strings.Contains(out, "named in session") {
		t.Fatalf("a commit after the session was named: %q", out)
	}
	log := git("log", "--format=%H %s%n%b", "start..main")
	if n := strings.Count(log, "Logbook-Record: "+id); n != 3 {
		t.Errorf("%d commits carry the session's trailer, want 3:\n%s", n, log)
	}
	out = run(filepath.Join(bin, "logbook-seal"), "--from-server", s.url, "--session", id, "--dir", records)
	if !strings.Contains(out, "with its proof of logging: 3 commit(s) bound in refs/notes/logbook") {
		t.Fatalf("logbook-seal --from-server: %s", out)
	}
	check := func(rng string, extra ...string) []commitLine {
		t.Helper()
		args := append([]string{"--json", "--commits", rng, "--records", records, "--pubkey", s.pub, "--checkpoint-key", s.vkey}, extra...)
		cmd := exec.Command(filepath.Join(bin, "logbook-verify"), args...)
		cmd.Dir, cmd.Env = proj, env
		out, _ := cmd.Output()
		var lines []commitLine
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var c commitLine
			if err := json.Unmarshal([]byte(l), &c); err != nil {
				t.Fatalf("%s: %q", rng, out)
			}
			lines = append(lines, c)
		}
		return lines
	}
	want := func(label string, got commitLine, status, code, by string) {
		t.Helper()
		c := ""
		if got.Code != nil {
			c = *got.Code
		}
		if got.Status != status || c != code || (status == "recorded" && (got.Session != id || got.Level != "server" || got.By != by)) {
			t.Errorf("%s: %+v, want %s %s by %s", label, got, status, code, by)
		}
	}
	lines := check("start..main", "--require-level", "server")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %+v", len(lines), lines)
	}
	want("recording off", lines[0], "unbound", "", "")
	want("by hand", lines[1], "recorded", "", "commit")
	want("agent: two", lines[2], "recorded", "", "commit")
	want("agent: one", lines[3], "recorded", "", "commit")
	recorded := git("rev-parse", "main~1")

	// (b) Rewrites by hand afterwards.
	git("checkout", "-q", "-b", "moved", "start")
	write("moved.txt", "moved\n")
	git("add", "moved.txt")
	git("commit", "-q", "-m", "the base moved")
	git("checkout", "-q", "-b", "rebased", recorded)
	git("rebase", "-q", "--onto", "moved", "start")
	for i, l := range check("moved..rebased") {
		want("rebased "+string(rune('0'+i)), l, "recorded", "", "patchId")
	}
	git("checkout", "-q", "-b", "picked", "start")
	git("cherry-pick", recorded+"~2")
	want("cherry-picked", check("start..picked")[0], "recorded", "", "patchId")
	git("checkout", "-q", "-b", "squashed", "start")
	git("merge", "-q", "--squash", recorded)
	git("commit", "-q", "-m", "squashed")
	want("squash merge", check("start..squashed")[0], "unbound", "", "")
	git("checkout", "-q", "-b", "reworded", recorded)
	git("commit", "-q", "--amend", "-m", "by hand: three, reworded")
	want("--amend of the message", check("reworded~1..reworded")[0], "recorded", "", "patchId")
	git("checkout", "-q", "-b", "amended", recorded)
	write("byhand.txt", "by hand, amended\n")
	git("commit", "-q", "-a", "--amend", "--no-edit")
	want("--amend of the change (its trailer kept)", check("amended~1..amended")[0], "refused", "COMMIT_NOT_IN_RECORD", "")

	// (c) A trailer copied to another change.
	git("checkout", "-q", "-b", "copied", "start")
	write("copied.txt", "copied\n")
	git("add", "copied.txt")
	git("commit", "-q", "-m", "not the agent's\n\nLogbook-Record: "+id)
	want("copied trailer", check("start..copied")[0], "refused", "COMMIT_NOT_IN_RECORD", "")
	// A note whose proof of logging is another record's: a second
	// session, recorded and sealed by the same server.
	for _, ev := range []string{"SessionStart", "SessionEnd"} {
		body := `{"session_id":"other","cwd":"/elsewhere","hook_event_name":"` + ev + `","source":"startup","reason":"exit"}`
		req, _ := http.NewRequest("POST", s.url+"/v1/hooks/claude-code", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", ev, err, resp)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	other := proofOf("other")
	oneID := git("rev-parse", recorded+"~2")
	note := git("notes", "--ref", "logbook", "show", oneID)
	var b map[string]any
	if err := json.Unmarshal([]byte(note), &b); err != nil || b["logProof"] == nil {
		t.Fatalf("the note carries no proof: %s", note)
	}
	b["logProof"] = string(other)
	forged, _ := json.Marshal(b)
	git("notes", "--ref", "logbook", "add", "-f", "-m", string(forged), oneID)
	want("note with another record's proof", check(recorded + "~3.." + recorded + "~2")[0], "refused", "LOG_PROOF_INVALID", "")
	git("notes", "--ref", "logbook", "add", "-f", "-m", note, oneID)
	// The record re-signed by another key.
	recFile := filepath.Join(records, id+".record.json")
	orig, _ := os.ReadFile(recFile)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	resigned, err := tamper.Apply(orig, tamper.Resign(priv))
	if err != nil || bytes.Equal(resigned, orig) {
		t.Fatal(err)
	}
	os.WriteFile(recFile, resigned, 0o644)
	lines = check("start.." + recorded)
	for i, l := range lines {
		want("re-signed by another key "+string(rune('0'+i)), l, "refused", "SIGNER_NOT_TRUSTED", "")
	}
	report(t, "real Claude Code "+claudeCodePkg+" through logbook-server: two commits by its Bash, one by hand during the session, one after: "+
		"three RECORDED at level server, one UNBOUND; rebase/cherry-pick by patch id, squash UNBOUND, amend COMMIT_NOT_IN_RECORD")
}
