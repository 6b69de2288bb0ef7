package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/transcript"
)

// reviewShown is what the page's review section shows.
type reviewShown struct {
	Rows      int      `json:"rows"`      // call rows drawn
	IDs       []string `json:"ids"`       // their toolUseIds
	Gaps      []string `json:"gaps"`      // the inline gap notes
	Agents    int      `json:"agents"`    // sub-agent groups
	Turns     int      `json:"turns"`     // turn headings
	Overflow  int      `json:"overflow"`  // page width beyond the window, px
	Untitled  int      `json:"untitled"`  // clipped elements with no title
	Clipped   int      `json:"clipped"`   // elements actually cut on screen
	Summary   string   `json:"summary"`   // the summary's text
	TimeWidth int      `json:"timeWidth"` // widest time cell overflow, px
	ByTurn    []string `json:"byTurn"`    // each turn's call ids, comma-separated
}

func (b *browser) review(tb testing.TB) reviewShown {
	s, err := evalJS[reviewShown](b, `(() => {
		const box = document.getElementById('review');
		const rows = [...box.querySelectorAll('.call')];
		const clips = [...box.querySelectorAll('.clip')];
		let tw = 0;
		for (const t of document.querySelectorAll('.time, td.time')) tw = Math.max(tw, t.scrollWidth - t.clientWidth);
		return {rows: rows.length, ids: rows.map((r) => r.dataset.id),
			gaps: [...box.querySelectorAll('.gapnote')].map((g) => g.textContent),
			agents: box.querySelectorAll('.agent').length, turns: box.querySelectorAll('.turn h3').length,
			overflow: document.documentElement.scrollWidth - window.innerWidth,
			untitled: clips.filter((c) => !c.title && c.textContent).length,
			clipped: clips.filter((c) => c.scrollWidth > c.clientWidth).length,
			summary: box.querySelector('dl.summary').innerText, timeWidth: tw,
			byTurn: [...box.querySelectorAll('.turn')].map((t) => [...t.querySelectorAll('.call')].map((c) => c.dataset.id).join(','))};
	})()`)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func (b *browser) viewport(tb testing.TB, w, h int64) {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		tb.Fatal(err)
	}
}

// open picks a record file in the page and waits for the verdict, like
// pick, without its full-page screenshot (a 387-step page is 100,000 px
// tall at 640 px).
func (b *browser) open(tb testing.TB, path string) {
	b.load(tb)
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.SetUploadFiles(chromedp.CSS("#file"), []string{abs})); err != nil {
		tb.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.WaitReady(chromedp.CSS(`body[data-state="done"]`))); err != nil {
		tb.Fatal(err)
	}
}

// viewShot scrolls the review section to the top of the window and takes
// a screenshot of the window.
func (b *browser) viewShot(tb testing.TB) []byte {
	if _, err := evalJS[chromedp.Void](b, `document.getElementById('review').scrollIntoView()`); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatal(err)
	}
	return png
}

func (b *browser) screenshot(tb testing.TB) []byte {
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.Fatal(err)
	}
	return png
}

// TestBrowserReview: the page's review shows one row per tool call (the
// same calls as logbook-review), turns, the sub-agent, every gap named by
// its toolUseId, and filters; its layout holds at 640 and 1280 px (no
// sideways scrolling, every cut value whole in its title), and the test
// leaves a screenshot at each width.
func TestBrowserReview(t *testing.T) {
	t.Parallel()
	rec, err := reviewtest.Record(reviewtest.Session)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "review.record.json")
	writeFile(t, path, rec)
	want, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	dir := screenshotDir(t)
	for _, w := range []int64{1280, 640} {
		b.viewport(t, w, 900)
		got, _ := b.pick(t, path, "")
		if got.OK != "true" {
			t.Fatalf("%d px: the page shows %+v", w, got)
		}
		s := b.review(t)
		if s.Rows != want.Summary.Calls || s.Rows != 9 {
			t.Errorf("%d px: %d call rows, logbook-review has %d", w, s.Rows, want.Summary.Calls)
		}
		gaps := strings.Join(s.Gaps, "|")
		for _, g := range []string{"unfinished: t-lost", "orphaned: no pre-event: t-orphan", "duplicated pre: t-edit"} {
			if !strings.Contains(gaps, g) {
				t.Errorf("%d px: gap %q not named: %v", w, g, s.Gaps)
			}
		}
		if s.Agents != 1 || s.Turns != 3 {
			t.Errorf("%d px: %d sub-agents, %d turn headings", w, s.Agents, s.Turns)
		}
		if s.Overflow > 0 || s.Untitled > 0 {
			t.Errorf("%d px: page %d px too wide, %d cut values without a title", w, s.Overflow, s.Untitled)
		}
		for _, part := range []string{"9: exec 3", "make lint", "unfinished: t-lost"} {
			if !strings.Contains(s.Summary, part) {
				t.Errorf("%d px: summary lacks %q:\n%s", w, part, s.Summary)
			}
		}
		png := b.screenshot(t)
		savePNG(t, dir, "review-"+strconv.FormatInt(w, 10)+".png", png)
	}
	// Filters: each gives the calls logbook-review --only gives.
	for _, f := range []string{"failed", "gaps", "exec", "edit", "all"} {
		if _, err := evalJS[chromedp.Void](b, `document.querySelector('button[data-filter="`+f+`"]').click()`); err != nil {
			t.Fatal(err)
		}
		only := f
		if f == "all" {
			only = ""
		}
		if got, want := b.review(t).Rows, review.CountCalls(review.Filter(want.Turns, only)); got != want {
			t.Errorf("filter %s: %d rows, want %d", f, got, want)
		}
	}
	b.checkQuiet(t)
}

// TestBrowserReviewSameAsCommand: the page and logbook-review read the
// same sessions alike: the same calls (by toolUseId, in order) and the
// same gaps, with ids, without ids (Gemini CLI), and with a sub-agent.
func TestBrowserReviewSameAsCommand(t *testing.T) {
	t.Parallel()
	noIDs := []string{
		`{"session_id":"g","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"path":"/w/a"}}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"g","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"pwd"}}`,
	}
	batchOnly := []string{
		`{"session_id":"b","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"}}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"b","cwd":"/w","hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"ls"},"tool_response":"a"},{"tool_name":"Nope","tool_use_id":"t2","tool_input":{},"tool_response":"no such tool"}]}`,
	}
	var withoutAgentStart []string
	for _, p := range reviewtest.Session {
		if !strings.Contains(p, `"SubagentStart"`) {
			withoutAgentStart = append(withoutAgentStart, p)
		}
	}
	turnIDs := []string{
		`{"session_id":"p","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"one","prompt_id":"p1"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"two","prompt_id":"p2"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1","prompt_id":"p1","tool_input":{"command":"ls"},"tool_response":"a"}`,
		`{"session_id":"p","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t2","prompt_id":"p2","tool_input":{"command":"pwd"}}`,
	}
	// A background sub-agent: the main agent's steps between its start
	// and stop name no agent and stay out of its box (issue 23).
	background := []string{
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SessionStart"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"go"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SubagentStart","agent_id":"ag1","agent_type":"Explore"}`,
		`{"session_id":"bg","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"}}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t-main","tool_input":{"command":"make"}}`,
		`{"session_id":"bg","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"},"tool_response":"b"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t-main","tool_input":{"command":"make"},"tool_response":"ok"}`,
		`{"session_id":"bg","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag1","agent_type":"Explore"}`,
	}
	b := newBrowser(t)
	for name, payloads := range map[string][]string{"background agent": background, "test session": reviewtest.Session, "no ids": noIDs, "long": reviewtest.Repeat(400), "no start": reviewtest.Session[1:], "batch only": batchOnly, "agent without start": withoutAgentStart, "turn ids": turnIDs} {
		rec, err := reviewtest.Record(payloads)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "r.json")
		writeFile(t, path, rec)
		want, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
		if err != nil {
			t.Fatal(err)
		}
		var ids, gaps, byTurn []string
		var walk func([]review.Item)
		walk = func(items []review.Item) {
			for _, it := range items {
				if it.Call != nil {
					ids = append(ids, it.Call.ToolUseID)
					for _, g := range it.Call.Gaps() {
						gaps = append(gaps, "⚠ "+g+": "+it.Call.ToolUseID)
					}
				}
				if it.SubAgent != nil {
					walk(it.SubAgent.Items)
				}
			}
		}
		for _, tu := range want.Turns {
			n := len(ids)
			walk(tu.Items)
			byTurn = append(byTurn, strings.Join(ids[n:], ","))
		}
		b.open(t, path)
		got := b.review(t)
		if strings.Join(got.IDs, ",") != strings.Join(ids, ",") || strings.Join(got.Gaps, "|") != strings.Join(gaps, "|") {
			t.Errorf("%s: page calls %v gaps %v; logbook-review calls %v gaps %v", name, got.IDs, got.Gaps, ids, gaps)
		}
		if strings.Join(got.ByTurn, "|") != strings.Join(byTurn, "|") {
			t.Errorf("%s: page turns %q; logbook-review turns %q", name, got.ByTurn, byTurn)
		}
		inAgents := 0
		for _, tu := range want.Turns {
			for _, it := range tu.Items {
				if it.SubAgent != nil {
					inAgents += it.SubAgent.Calls
				}
			}
		}
		if n, err := evalJS[int](b, `document.querySelectorAll('#review .agent .call').length`); err != nil || n != inAgents {
			t.Errorf("%s: page shows %d calls in sub-agents' boxes, logbook-review %d (%v)", name, n, inAgents, err)
		}
		agents, err := evalJS[int](b, `document.querySelectorAll('#review .agent').length`)
		if wantAgents := want.Summary.SubAgents; err != nil || agents != wantAgents {
			t.Errorf("%s: page shows %d sub-agents, logbook-review %d", name, agents, wantAgents)
		}
		missing, err := evalJS[bool](b, `!!document.querySelector('#review .session-gap')`)
		if err != nil || missing != (want.Summary.Gaps.MissingSessionStart == 1) {
			t.Errorf("%s: page shows missing start %v, logbook-review %d", name, missing, want.Summary.Gaps.MissingSessionStart)
		}
	}
	b.checkQuiet(t)
}

// TestBrowserReviewRealSession: on real Claude Code sessions (the
// 387-event demo session and the sub-agent session, converted from their
// transcripts in ../shared), the page's rows are the tool calls, one row
// each, as in logbook-review.
func TestBrowserReviewRealSession(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "corpora/agent-sessions", "the page's review of real Claude Code sessions")
	b := newBrowser(t)
	for _, name := range []string{"258c7280-ae70-4798-800f-63464d01a85d", "subagent"} {
		src := filepath.Join(dir, name+".jsonl")
		events, _, err := transcript.ConvertFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := transcript.WriteJSONL(&buf, events); err != nil {
			t.Fatal(err)
		}
		times := make([]time.Time, len(events))
		for i, e := range events {
			times[i] = e.Time
		}
		data, err := reviewtest.RecordAt(strings.Split(strings.TrimSpace(buf.String()), "\n"), times)
		if err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(t.TempDir(), name+".record.json")
		writeFile(t, rec, data)
		want, err := review.FromRecord(data, record.Verify(data, record.Options{}), false)
		if err != nil {
			t.Fatal(err)
		}
		b.viewport(t, 1280, 900)
		b.open(t, rec)
		s := b.review(t)
		if s.Rows != want.Summary.Calls || review.CountCalls(want.Turns) != want.Summary.Calls || s.Rows != toolCalls(events) {
			t.Errorf("%s: page rows %d, review calls %d (rows %d), transcript calls %d", name, s.Rows, want.Summary.Calls, review.CountCalls(want.Turns), toolCalls(events))
		}
		if s.TimeWidth > 0 || s.Overflow > 0 {
			t.Errorf("%s: a time overruns its cell by %d px; page %d px too wide", name, s.TimeWidth, s.Overflow)
		}
		report(t, fmt.Sprintf("review of %s (%d events): %d tool calls, one row each on the page and in logbook-review", name, len(events), s.Rows))
		if strings.HasPrefix(name, "258c") {
			savePNG(t, screenshotDir(t), "review-demo-1280.png", b.viewShot(t))
			b.viewport(t, 640, 900)
			b.open(t, rec)
			if s := b.review(t); s.Overflow > 0 || s.TimeWidth > 0 {
				t.Errorf("%s at 640 px: page %d px too wide, a time overruns by %d px", name, s.Overflow, s.TimeWidth)
			}
			savePNG(t, screenshotDir(t), "review-demo-640.png", b.viewShot(t))
		}
	}
	b.checkQuiet(t)
}

// toolCalls counts the distinct tool calls among hook events.
func toolCalls(events []transcript.Event) int {
	ids := map[string]bool{}
	for _, e := range events {
		if e.ToolUseID != "" && (e.HookEventName == "PreToolUse" || e.HookEventName == "PostToolUse" || e.HookEventName == "PostToolUseFailure") {
			ids[e.ToolUseID] = true
		}
	}
	return len(ids)
}

// BenchmarkPageReview: the page checks a 100,000-step record and draws
// its review (the first 200 call rows, its summary and filters) and the
// first 50 steps.
func BenchmarkPageReview(b *testing.B) {
	rec, err := reviewtest.Record(reviewtest.Repeat(100_000))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "big.record.json")
	if err := os.WriteFile(path, rec, 0o644); err != nil {
		b.Fatal(err)
	}
	br := newBrowser(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br.open(b, path)
	}
	b.StopTimer()
	s := br.review(b)
	if s.Rows != 200 {
		b.Fatalf("%d rows drawn", s.Rows)
	}
}
