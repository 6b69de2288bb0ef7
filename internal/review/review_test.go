package review_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

func load(t testing.TB, payloads []string) *review.Review {
	rec, err := reviewtest.Record(payloads)
	if err != nil {
		t.Fatal(err)
	}
	res := record.Verify(rec, record.Options{})
	if !res.OK {
		t.Fatalf("fixture refused: %s %s", res.Code, res.Detail)
	}
	r, err := review.FromRecord(rec, res, false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func calls(items []review.Item, agent string, out map[string]*review.Call) {
	for _, it := range items {
		if it.Call != nil {
			out[it.Call.ToolUseID] = it.Call
		}
		if it.SubAgent != nil {
			calls(it.SubAgent.Items, it.SubAgent.ID, out)
		}
	}
}

func TestBuild(t *testing.T) {
	r := load(t, reviewtest.Session)
	if !r.Verdict.OK || !strings.HasPrefix(r.Verdict.Line, "OK recordId=") {
		t.Fatalf("verdict %+v", r.Verdict)
	}
	s := r.Summary
	// One row per tool call: 9 distinct toolUseIds.
	if s.Calls != 9 || review.CountCalls(r.Turns) != 9 {
		t.Fatalf("calls %d (rows %d), want 9", s.Calls, review.CountCalls(r.Turns))
	}
	if s.Turns != 2 || len(r.Turns) != 3 || r.Turns[0].Prompt != nil || r.Turns[1].Prompt == nil {
		t.Fatalf("turns %d, %d groups", s.Turns, len(r.Turns))
	}
	all := map[string]*review.Call{}
	for _, tu := range r.Turns {
		calls(tu.Items, "", all)
	}
	ok := all["t-ok"]
	if ok == nil || ok.Kind != "exec" || ok.Subject != "go test ./..." || ok.Duration() == nil || *ok.Duration() != 1500 || ok.Failed || len(ok.Pre()) != 1 || len(ok.Post()) != 1 {
		t.Errorf("t-ok %+v", ok)
	}
	f := all["t-fail"]
	if f == nil || !f.Failed || f.ExitCode() == nil || *f.ExitCode() != 2 || *f.Duration() != 1000 {
		t.Errorf("t-fail %+v", f)
	}
	if e := all["t-edit"]; e == nil || strings.Join(e.Gaps(), ",") != review.GapDuplicatePre || e.Subject != "a.go" {
		t.Errorf("t-edit %+v", e)
	}
	if l := all["t-lost"]; l == nil || strings.Join(l.Gaps(), ",") != review.GapUnfinished || l.Duration() != nil {
		t.Errorf("t-lost %+v", l)
	}
	if o := all["t-orphan"]; o == nil || strings.Join(o.Gaps(), ",") != review.GapOrphaned {
		t.Errorf("t-orphan %+v", o)
	}
	// The sub-agent's calls nest under it, in the first turn.
	var sub *review.SubAgent
	for _, it := range r.Turns[1].Items {
		if it.SubAgent != nil {
			sub = it.SubAgent
		}
	}
	if sub == nil || sub.ID != "ag1" || sub.Type != "Explore" || sub.Calls != 2 || sub.End == "" {
		t.Fatalf("sub-agent %+v", sub)
	}
	if all["t-read"].Agent != "ag1" || all["t-task"].Agent != "" {
		t.Errorf("agents: read %q task %q", all["t-read"].Agent, all["t-task"].Agent)
	}
	if s.ByKind["exec"] != 3 || s.ByKind["edit"] != 1 || s.ByKind["write"] != 1 || s.ByKind["read"] != 2 {
		t.Errorf("by kind %v", s.ByKind)
	}
	if len(s.Failed) != 1 || s.Failed[0].ToolUseID != "t-fail" {
		t.Errorf("failed %+v", s.Failed)
	}
	var paths []string
	for _, f := range s.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "NOTES.md a.go b.go c.go" {
		t.Errorf("files %v", paths)
	}
	g := s.Gaps
	if g.UnfinishedToolCalls != 1 || g.DuplicatePreEvents != 1 || g.PostWithoutPre != 1 || g.ToolUseIDs == nil || g.ToolUseIDs.Unfinished[0] != "t-lost" {
		t.Errorf("gaps %+v", g)
	}
	if s.TotalMs != int64(len(reviewtest.Session)-1)*1000 {
		t.Errorf("total %d ms", s.TotalMs)
	}
}

func TestAssurance(t *testing.T) {
	r := load(t, reviewtest.Session)
	r.SetAssurance("server")
	if r.Verdict.Assurance != "server" || !strings.Contains(r.Verdict.Line, " steps=24 level=server signer=unpinned") {
		t.Fatalf("%+v", r.Verdict)
	}
}

func TestText(t *testing.T) {
	r := load(t, reviewtest.Session)
	var b bytes.Buffer
	if err := review.WriteText(&b, r, review.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"OK recordId=", "calls     9: exec 3", "failed    1", "exit 2", "! unfinished: t-lost",
		"! orphaned: no pre-event: t-orphan", "! duplicated pre: t-edit", "┌ sub-agent ag1 Explore", "│ ", "── turn 1", "── turn 2", "Grep TODO"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour without Colour")
	}
	b.Reset()
	_ = review.WriteText(&b, r, review.TextOptions{Colour: true})
	if !strings.Contains(b.String(), "\x1b[31m") {
		t.Error("no red with Colour")
	}
}

func TestFilter(t *testing.T) {
	r := load(t, reviewtest.Session)
	for only, want := range map[string]int{"exec": 3, "edit": 2, "failed": 1, "gaps": 3, "": 9} {
		if got := review.CountCalls(review.Filter(r.Turns, only)); got != want {
			t.Errorf("--only %q: %d calls, want %d", only, got, want)
		}
	}
	if review.CheckFilter("bogus") == nil {
		t.Error("bogus filter accepted")
	}
}

func TestRefusedStillShown(t *testing.T) {
	rec, _ := reviewtest.Record(reviewtest.Session)
	bad := bytes.Replace(rec, []byte(`"summary":"Stop: final message (13 bytes)"`), []byte(`"summary":"Stop: final message (14 bytes)"`), 1)
	if bytes.Equal(bad, rec) {
		t.Fatal("tamper did not apply")
	}
	res := record.Verify(bad, record.Options{})
	r, err := review.FromRecord(bad, res, false)
	if err != nil || r.Verdict.OK || r.Verdict.Code != string(format.ChainBroken) || !strings.Contains(r.Verdict.Line, "nothing vouches") || r.Summary.Calls != 9 {
		t.Fatalf("%v %+v", err, r.Verdict)
	}
	r, err = review.FromRecord([]byte("{"), record.Verify([]byte("{"), record.Options{}), false)
	if err != nil || r.Verdict.Code != string(format.NotJSON) || len(r.Turns) != 0 {
		t.Fatalf("%v %+v", err, r)
	}
}

func TestInProgress(t *testing.T) {
	steps, _, _, err := reviewtest.Steps(reviewtest.Session, reviewtest.Start)
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(steps, &items); err != nil {
		t.Fatal(err)
	}
	file := []byte(`{"format":"logbook/in-progress@0","session":"s1","cwd":"/w","harness":"claude-code"}` + "\n")
	for _, it := range items {
		file = append(append(file, it...), '\n')
	}
	r, err := review.FromInProgress(file)
	if err != nil || !r.Verdict.OK || r.Verdict.State != "in progress" || r.Summary.Calls != 9 {
		t.Fatalf("%v %+v", err, r.Verdict)
	}
	torn := append(append([]byte{}, file...), []byte(`{"at":"2026`)...)
	r, _ = review.FromInProgress(torn)
	if !r.Verdict.OK || !strings.Contains(r.Verdict.Line, "cut") {
		t.Fatalf("torn: %+v", r.Verdict)
	}
	edited := bytes.Replace(file, []byte("make lint"), []byte("make fmt"), 1)
	r, _ = review.FromInProgress(edited)
	if r.Verdict.OK || r.Verdict.Code != string(format.ChainBroken) {
		t.Fatalf("edited: %+v", r.Verdict)
	}
}

// BenchmarkReview100k: reading, joining and printing a 100,000-step
// record (the verification is BenchmarkVerify100k's).
func BenchmarkReview100k(b *testing.B) {
	rec, err := reviewtest.Record(reviewtest.Repeat(100_000))
	if err != nil {
		b.Fatal(err)
	}
	res := record.Verify(rec, record.Options{})
	if !res.OK {
		b.Fatal(res.Detail)
	}
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := review.FromRecord(rec, res, false)
		if err != nil || r.Summary.Calls != 49_504 {
			b.Fatal(err, r.Summary.Calls)
		}
		if err := review.WriteText(discard{}, r, review.TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestNoIDs: a harness that sends no tool call id (Gemini CLI) gets its
// post-events joined to the oldest open pre-event of the same tool, and
// no gap claimed.
func TestNoIDs(t *testing.T) {
	r := load(t, []string{
		`{"session_id":"g","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"path":"/w/a"}}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"pwd"}}`,
	})
	if r.Summary.Calls != 3 || r.Summary.Gaps.Total() != 0 {
		t.Fatalf("%+v", r.Summary)
	}
	var first *review.Call
	for _, it := range r.Turns[0].Items {
		if it.Call != nil && first == nil {
			first = it.Call
		}
	}
	if first == nil || first.Subject != "ls" || len(first.Pre()) != 1 || len(first.Post()) != 1 || first.Duration() == nil || *first.Duration() != 2000 || len(first.Gaps()) != 0 {
		t.Fatalf("%+v", first)
	}
}

func TestMissingStart(t *testing.T) {
	r := load(t, reviewtest.Session[1:])
	var b bytes.Buffer
	_ = review.WriteText(&b, r, review.TextOptions{})
	if r.Summary.Gaps.MissingSessionStart != 1 || !strings.Contains(b.String(), "! missing start: no SessionStart event was recorded") {
		t.Fatalf("%+v\n%s", r.Summary.Gaps, b.String())
	}
}

// TestBatchOnly: a call Claude Code refused before any hook (an unknown
// tool) is named only by PostToolBatch; it is a row, with a note.
func TestBatchOnly(t *testing.T) {
	r := load(t, []string{
		`{"session_id":"b","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":"a"},{"tool_name":"Nope","tool_use_id":"t2","tool_input":{},"tool_response":"<tool_use_error>No such tool</tool_use_error>"}]}`,
	})
	if r.Summary.Calls != 2 || r.Summary.Gaps.Total() != 0 {
		t.Fatalf("%+v", r.Summary)
	}
	var b bytes.Buffer
	_ = review.WriteText(&b, r, review.TextOptions{})
	if !strings.Contains(b.String(), "Nope  t2") || !strings.Contains(b.String(), "· "+review.NoteBatchOnly) {
		t.Fatal(b.String())
	}
}

// TestAgentWithoutStart: a sub-agent's calls nest under it even when its
// SubagentStart was lost.
func TestAgentWithoutStart(t *testing.T) {
	var payloads []string
	for _, p := range reviewtest.Session {
		if !strings.Contains(p, `"SubagentStart"`) {
			payloads = append(payloads, p)
		}
	}
	r := load(t, payloads)
	var sub *review.SubAgent
	for _, it := range r.Turns[1].Items {
		if it.SubAgent != nil {
			sub = it.SubAgent
		}
	}
	if sub == nil || sub.ID != "ag1" || sub.Calls != 2 {
		t.Fatalf("%+v", sub)
	}
}

// TestTurnByID: a call whose post-event landed after the next prompt
// (parallel hooks) stays in the turn its prompt_id names.
func TestTurnByID(t *testing.T) {
	r := load(t, []string{
		`{"session_id":"p","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"one","prompt_id":"p1"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"two","prompt_id":"p2"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","prompt_id":"p1","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t2","prompt_id":"p2","tool_input":{"command":"pwd"}}`,
	})
	if len(r.Turns) != 3 || len(r.Turns[1].Items) != 1 || r.Turns[1].Items[0].Call == nil || r.Turns[1].Items[0].Call.ToolUseID != "t1" {
		t.Fatalf("%+v", r.Turns)
	}
}

// TestFilterKeepsTurnNumbers: --only failed shows the failed call under
// the session's own turn number, not a count of the turns shown.
func TestFilterKeepsTurnNumbers(t *testing.T) {
	t.Parallel()
	r := load(t, []string{
		`{"session_id":"n","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"first"}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"a1","tool_input":{"command":"ls"}}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"a1","tool_input":{"command":"ls"},"tool_response":"x"}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"second"}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"b1","tool_input":{"command":"make lint"}}`,
		`{"session_id":"n","cwd":"/w","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"b1","tool_input":{"command":"make lint"},"error":"Exit code 2"}`,
	})
	r.Turns = review.Filter(r.Turns, "failed")
	if len(r.Turns) != 1 || r.Turns[0].Number != 2 {
		t.Fatalf("filtered turns %+v", r.Turns)
	}
	var b bytes.Buffer
	_ = review.WriteText(&b, r, review.TextOptions{Only: "failed"})
	if !strings.Contains(b.String(), "── turn 2 ") || strings.Contains(b.String(), "── turn 1 ") {
		t.Fatalf("text:\n%s", b.String())
	}
	j, _ := json.Marshal(r.Turns[0])
	if !strings.Contains(string(j), `"number":2`) {
		t.Fatalf("json: %s", j)
	}
}

// TestTextFitsWidth: at 100 columns no line is wider, the verdict wraps
// whole, the failed calls are capped with a count, rows show short ids
// and keep most of their command.
func TestTextFitsWidth(t *testing.T) {
	t.Parallel()
	p := []string{`{"session_id":"w","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"w","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"go"}`}
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("toolu_01ABCDEFGHIJKLMNOPQRSTUV%06d", i)
		cmd := fmt.Sprintf("go test ./internal/some/deeply/nested/package/number/%d -run TestSomethingLong -count=1", i)
		p = append(p,
			`{"session_id":"w","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":"`+cmd+`"}}`,
			`{"session_id":"w","cwd":"/w","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":"`+cmd+`"},"error":"Exit code 1"}`,
			`{"session_id":"w","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"e`+id+`","tool_input":{"file_path":"/w/some/long/directory/name/file_`+fmt.Sprint(i)+`.go"}}`,
			`{"session_id":"w","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Edit","tool_use_id":"e`+id+`","tool_input":{"file_path":"/w/some/long/directory/name/file_`+fmt.Sprint(i)+`.go"},"tool_response":{}}`)
	}
	r := load(t, p)
	var b bytes.Buffer
	if err := review.WriteText(&b, r, review.TextOptions{Width: 100, Colour: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
	for _, l := range strings.Split(plain, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	verdict := strings.Join(strings.Fields(strings.Join(strings.Split(plain, "\n")[:4], " ")), " ")
	if !strings.Contains(verdict, strings.Join(strings.Fields(r.Verdict.Line), " ")) {
		t.Errorf("the verdict is not all there:\n%s", plain)
	}
	for _, want := range []string{"… and 30 more failed calls", "…UV000007", "files     40: ", "more\n", "exit 1 go test ./internal/some/deeply/nested/package/number/7 -run TestSomethi…  …UV000007",
		"exit 1 go test ./internal/some/deeply/nested/package/numb…  …UV000007"} {
		if !strings.Contains(plain, want) {
			t.Errorf("lacks %q:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "toolu_01ABCDEFGHIJKLMNOPQRSTUV000007") {
		t.Error("a whole id at a terminal width")
	}
	// A pipe (width 0) keeps whole lines and ids.
	b.Reset()
	_ = review.WriteText(&b, r, review.TextOptions{})
	if !strings.Contains(b.String(), "toolu_01ABCDEFGHIJKLMNOPQRSTUV000007") || !strings.Contains(b.String(), "… and 30 more failed calls") {
		t.Errorf("pipe output:\n%s", b.String())
	}
}

// TestBackgroundAgentByID: a background sub-agent runs while the main
// agent goes on. Its steps name it (agent_id); the main agent's
// PostToolBatch, its calls and its final Stop, recorded between the
// sub-agent's start and stop, name no agent and stay out of its box.
func TestBackgroundAgentByID(t *testing.T) {
	r := load(t, []string{
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"go"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Agent","tool_use_id":"t-agent","tool_input":{"subagent_type":"Explore","prompt":"look","run_in_background":true}}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SubagentStart","agent_id":"ag1","agent_type":"Explore"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Agent","tool_use_id":"t-agent","tool_input":{"subagent_type":"Explore","prompt":"look"},"tool_response":"started"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Agent","tool_use_id":"t-agent","tool_input":{},"tool_response":"started"}]}`,
		`{"session_id":"bg","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"}}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t-main","tool_input":{"command":"make"}}`,
		`{"session_id":"bg","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"},"tool_response":"package b"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t-main","tool_input":{"command":"make"},"tool_response":"ok"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"Stop","last_assistant_message":"done"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag1","agent_type":"Explore","last_assistant_message":"found nothing"}`,
	})
	var sub *review.SubAgent
	var main []string
	for _, it := range r.Turns[len(r.Turns)-1].Items {
		switch {
		case it.SubAgent != nil:
			sub = it.SubAgent
		case it.Call != nil:
			main = append(main, it.Call.ToolUseID)
		case it.Event != nil:
			main = append(main, it.Event.Event)
		}
	}
	if sub == nil || sub.ID != "ag1" || sub.Calls != 1 || len(sub.Items) != 1 || sub.Items[0].Call == nil || sub.Items[0].Call.ToolUseID != "t-read" {
		t.Fatalf("the sub-agent's box: %+v", sub)
	}
	got := strings.Join(main, " ")
	for _, want := range []string{"t-agent", "PostToolBatch", "t-main", "Stop"} {
		if !strings.Contains(got, want) {
			t.Errorf("main agent's items %q lack %s", got, want)
		}
	}
	var b bytes.Buffer
	_ = review.WriteText(&b, r, review.TextOptions{})
	t.Log(b.String())
}

// TestSubAgentMarks: a sub-agent's SubagentStart and SubagentStop are no
// rows of their own but are kept as the group's marks (OTLP logs send
// every step that is not a call's); a SubagentStop of no known sub-agent
// is an event row, not dropped.
func TestSubAgentMarks(t *testing.T) {
	t.Parallel()
	payloads := append(append([]string{}, reviewtest.Session...),
		`{"session_id":"s1","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag-gone","agent_type":"Plan"}`)
	rec, err := reviewtest.Record(payloads)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	var marks []string
	orphan := 0
	var walk func([]review.Item)
	walk = func(items []review.Item) {
		for _, it := range items {
			if a := it.SubAgent; a != nil {
				for _, m := range a.Marks {
					marks = append(marks, a.ID+":"+m.Event)
				}
				walk(a.Items)
			}
			if e := it.Event; e != nil && e.Event == "SubagentStop" {
				if e.AgentID() != "ag-gone" {
					t.Errorf("the stop of a known sub-agent is a row: %+v", e)
				}
				orphan++
			}
		}
	}
	for _, tu := range r.Turns {
		walk(tu.Items)
	}
	if strings.Join(marks, ",") != "ag1:SubagentStart,ag1:SubagentStop" || orphan != 1 {
		t.Errorf("marks %v, %d orphan stop rows", marks, orphan)
	}
}
