package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// TestRealClaudeCodeReviewEvidence runs the real Claude Code against the
// fake model with tool calls of every common kind (an Edit sent without
// replace_all, which Claude Code adds before its hooks see the input),
// then checks what a reviewer would: logbook-review shows one row per tool
// call the model made, and logbook-verify --evidence finds every tool
// input, prompt and final message of Claude Code's own transcript matched;
// a copy of the transcript with one tool result edited shows exactly that
// call as differs.
func TestRealClaudeCodeReviewEvidence(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	// The install's HOME is the run's: its user-level guard list goes
	// there, not into the test's working directory.
	home := t.TempDir()
	proj, saved := harnessProject(t, "claude-code", ".claude/settings.json", home, []string{"PreToolUse", "PostToolUse"})
	key := filepath.Join(home, "signing.key")
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	calls := [][]fakemodel.ToolCall{
		{
			{ID: "toolu_r1bash", Name: "Bash", Input: raw(`{"command":"echo hello","description":"say hello"}`)},
			{ID: "toolu_r2read", Name: "Read", Input: raw(`{"file_path":"` + proj + `/notes.txt"}`)},
		},
		{{ID: "toolu_r3write", Name: "Write", Input: raw(`{"file_path":"` + proj + `/out.txt","content":"hello\n"}`)}},
		{{ID: "toolu_r4edit", Name: "Edit", Input: raw(`{"file_path":"` + proj + `/out.txt","old_string":"hello","new_string":"bye"}`)}},
		{{ID: "toolu_r5fail", Name: "Bash", Input: raw(`{"command":"sh -c 'exit 3'"}`)}},
		{
			{ID: "toolu_r8grep", Name: "Grep", Input: raw(`{"pattern":"notes"}`)},
			{ID: "toolu_r9glob", Name: "Glob", Input: raw(`{"pattern":"*.txt"}`)},
			{ID: "toolu_rAtodo", Name: "TodoWrite", Input: raw(`{"todos":[{"content":"check","status":"pending","activeForm":"Checking"}]}`)},
		},
		{{ID: "toolu_r6agent", Name: "Agent", Input: raw(`{"description":"look","prompt":"SUBTASK: echo from the sub-agent","subagent_type":"general-purpose"}`)}},
	}
	sub := fakemodel.ToolCall{ID: "toolu_r7sub", Name: "Bash", Input: raw(`{"command":"echo sub"}`)}
	script := &fakemodel.Script{Agents: map[string][]fakemodel.Turn{"SUBTASK": {{Calls: []fakemodel.ToolCall{sub}}}}}
	want := map[string]bool{sub.ID: true}
	for _, c := range calls {
		script.Turns = append(script.Turns, fakemodel.Turn{Text: "Working.", Calls: c})
		for _, x := range c {
			want[x.ID] = true
		}
	}
	srv, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "do the work", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, out)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal(out, &res)
	waitQuiet(saved)
	dir := filepath.Join(proj, ".logbook")
	rec := filepath.Join(t.TempDir(), "real.record.json")
	if o, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", dir, "--session", res.SessionID, "--key", key, "--out", rec).CombinedOutput(); err != nil {
		t.Fatalf("seal: %v %s", err, o)
	}

	// The review's rows are the model's tool calls.
	o, err := exec.Command(filepath.Join(bin, "logbook-review"), "--json", rec).Output()
	if err != nil {
		t.Fatalf("logbook-review: %v", err)
	}
	var rv struct {
		Summary struct {
			Calls int
			Gaps  struct{ UnfinishedToolCalls, PostWithoutPre int }
		}
		Turns []struct{ Items []json.RawMessage }
	}
	if err := json.Unmarshal(o, &rv); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, id := range regexpAll(string(o), `"toolUseId":"(toolu_[A-Za-z0-9_]+)"`) {
		ids[id] = true
	}
	for id := range want {
		if !ids[id] {
			t.Errorf("logbook-review has no row for the model's call %s", id)
		}
	}
	if rv.Summary.Calls != len(want) {
		t.Errorf("logbook-review: %d calls, the model made %d", rv.Summary.Calls, len(want))
	}
	text, _ := exec.Command(filepath.Join(bin, "logbook-review"), rec).Output()
	testreport.Line(t, fmt.Sprintf("real Claude Code session: %d tool calls made by the model, %d rows in logbook-review", len(want), rv.Summary.Calls))
	t.Logf("logbook-review:\n%s", text)

	// Evidence against Claude Code's own transcript.
	transcripts, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", res.SessionID+".jsonl"))
	if keep := os.Getenv("LOGBOOK_KEEP_REAL"); keep != "" {
		exec.Command("sh", "-c", "mkdir -p "+keep+" && cp -r "+rec+" "+saved+" "+filepath.Dir(transcripts[0])+" "+keep).Run()
	}
	if len(transcripts) != 1 {
		t.Fatalf("transcript of %s: found %v", res.SessionID, transcripts)
	}
	ev, code := verifyEvidence(t, rec, transcripts[0])
	t.Logf("evidence:\n%s", ev)
	testreport.Line(t, "real Claude Code session, evidence: "+lastLineOf(ev))
	if code != 0 || !strings.Contains(ev, "EVIDENCE MATCHES") || strings.Contains(ev, " differs") && !strings.Contains(ev, "0 differs") {
		t.Errorf("evidence on the real transcript: exit %d", code)
	}
	// Every tool input, prompt and final message matched; a tool's output
	// is matched, or absent where the transcript kept only what the model
	// read (a sub-agent's transcript has no toolUseResult).
	for _, l := range strings.Split(ev, "\n") {
		for _, part := range strings.Split(l, ", ") {
			switch {
			case strings.Contains(part, "input absent"), strings.Contains(part, "input differs"):
				t.Errorf("a tool input or prompt not matched: %s", l)
			case strings.HasPrefix(l, "absent   final message"), strings.HasPrefix(l, "absent   prompt"):
				t.Errorf("not matched: %s", l)
			case strings.Contains(part, "output absent") && strings.HasPrefix(l, "absent   call") && !strings.Contains(part, "text the model saw"):
				t.Errorf("a tool output absent for no stated reason: %s", l)
			}
		}
	}
	if strings.Contains(ev, "harness-added") {
		testreport.Line(t, "real Claude Code session: harness-added fields normalized: "+grepLine(ev, "harness-added"))
	}

	// One edited tool result in a copy of the transcript.
	copyDir := t.TempDir()
	if err := exec.Command("cp", "-r", filepath.Dir(transcripts[0]), copyDir).Run(); err != nil {
		t.Fatal(err)
	}
	ct := filepath.Join(copyDir, filepath.Base(filepath.Dir(transcripts[0])), filepath.Base(transcripts[0]))
	data, err := os.ReadFile(ct)
	if err != nil {
		t.Fatal(err)
	}
	// The Read of notes.txt: its result holds the file's text.
	edited := bytes.Replace(data, []byte(`some notes`), []byte(`some n0tes`), -1)
	if bytes.Equal(edited, data) {
		t.Fatal("the transcript holds no Read result to edit")
	}
	os.WriteFile(ct, edited, 0o644)
	ev, code = verifyEvidence(t, rec, ct)
	if code != 1 || strings.Count(ev, "\ndiffers ") != 1 || !strings.Contains(ev, "differs  call Read toolu_r2read") {
		t.Errorf("edited transcript: exit %d\n%s", code, ev)
	}
	testreport.Line(t, "real Claude Code session, one tool result edited: "+grepLine(ev, "differs  call"))
}

func verifyEvidence(t *testing.T, rec, transcript string) (string, int) {
	cmd := exec.Command(filepath.Join(bin, "logbook-verify"), rec, "--evidence", transcript)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func lastLineOf(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}

func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func regexpAll(s, pattern string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
