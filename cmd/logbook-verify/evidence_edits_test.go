package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
	"github.com/logbook-project/logbook/internal/transcript"
)

// twoTurns is a Claude Code transcript of two turns: an Edit and a Bash
// call, then a second prompt with one more Bash call. Line numbers (1-10)
// are what the edits below name.
func twoTurns() []string {
	base := `"sessionId":"ev2","cwd":"/w","isSidechain":false,`
	at := func(s int) string { return fmt.Sprintf(`"timestamp":"2026-05-01T10:00:%02d.000Z",`, s) }
	use := func(s int, msg, id, tool, in string) string {
		return `{"type":"assistant",` + base + at(s) + `"message":{"id":"` + msg + `","model":"m","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"` + tool + `","input":` + in + `}]}}`
	}
	result := func(s int, id, read, tur string) string {
		return `{"type":"user",` + base + at(s) + `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"` + read + `"}]},"toolUseResult":` + tur + `}`
	}
	prompt := func(s int, text string) string {
		return `{"type":"user",` + base + at(s) + `"message":{"role":"user","content":"` + text + `"}}`
	}
	final := func(s int, msg, text string) string {
		return `{"type":"assistant",` + base + at(s) + `"message":{"id":"` + msg + `","model":"m","role":"assistant","content":[{"type":"text","text":"` + text + `"}]}}`
	}
	return []string{
		prompt(0, "fix it"),
		use(1, "m1", "tu-edit", "Edit", `{"file_path":"/w/a.go","old_string":"x","new_string":"y","replace_all":false}`),
		result(2, "tu-edit", "The file /w/a.go has been updated.", `{"filePath":"/w/a.go"}`),
		use(3, "m2", "tu-test", "Bash", `{"command":"go test"}`),
		result(4, "tu-test", "PASS", `{"stdout":"PASS","stderr":"","interrupted":false}`),
		final(5, "m3", "tests pass"),
		prompt(6, "and lint"),
		use(7, "m4", "tu-lint", "Bash", `{"command":"make lint"}`),
		result(8, "tu-lint", "clean", `{"stdout":"clean","stderr":"","interrupted":false}`),
		final(9, "m5", "lint is clean"),
	}
}

// hooksWithBatches is what Claude Code 2.1.3xx hands its hooks for a
// transcript: the converted events, and after each call's post-event a
// PostToolBatch with its input and the result text the model read.
func hooksWithBatches(t *testing.T, text string) []string {
	events, _, err := transcript.Convert(strings.NewReader(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range events {
		var buf bytes.Buffer
		if err := transcript.WriteJSONL(&buf, events[i:i+1]); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(buf.String()))
		e := &events[i]
		if e.HookEventName != transcript.PostToolUse && e.HookEventName != transcript.PostToolUseFailure {
			continue
		}
		type call struct {
			Name  string          `json:"tool_name"`
			ID    string          `json:"tool_use_id"`
			Input json.RawMessage `json:"tool_input"`
			Resp  json.RawMessage `json:"tool_response"`
		}
		b, _ := json.Marshal(struct {
			SessionID string `json:"session_id"`
			Cwd       string `json:"cwd"`
			Event     string `json:"hook_event_name"`
			Calls     []call `json:"tool_calls"`
		}{e.SessionID, e.Cwd, "PostToolBatch", []call{{e.ToolName, e.ToolUseID, e.ToolInput, e.ResultContent}}})
		out = append(out, string(b))
	}
	return out
}

// TestEvidenceEveryEdit: each kind of transcript edit fails --evidence
// (exit 1), and the untouched transcript passes (exit 0). The table is
// logged: `go test ./cmd/logbook-verify -run TestEvidenceEveryEdit -v`.
func TestEvidenceEveryEdit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lines := twoTurns()
	orig := strings.Join(lines, "\n") + "\n"
	rec, err := reviewtest.Record(hooksWithBatches(t, orig))
	if err != nil {
		t.Fatal(err)
	}
	recFile := writeTemp(t, dir, "r.json", rec)
	replace := func(n int, old, new string) func([]string) []string {
		return func(l []string) []string {
			if !strings.Contains(l[n-1], old) {
				t.Fatalf("line %d has no %q", n, old)
			}
			l[n-1] = strings.Replace(l[n-1], old, new, 1)
			return l
		}
	}
	remove := func(n int) func([]string) []string {
		return func(l []string) []string { return append(l[:n-1:n-1], l[n:]...) }
	}
	// order takes the lines in the order given (1-based).
	order := func(ns ...int) func([]string) []string {
		return func(l []string) []string {
			var out []string
			for _, n := range ns {
				out = append(out, l[n-1])
			}
			return out
		}
	}
	// insert puts after line n copies of lines ns (1-based), each edited
	// by the replacer's pairs.
	insert := func(n int, r *strings.Replacer, ns ...int) func([]string) []string {
		return func(l []string) []string {
			var add []string
			for _, k := range ns {
				add = append(add, r.Replace(l[k-1]))
			}
			return append(l[:n:n], append(add, l[n:]...)...)
		}
	}
	cases := []struct {
		name string
		edit func([]string) []string
		want string // in the output
	}{
		{"untouched", func(l []string) []string { return l }, "EVIDENCE MATCHES:"},
		{"output the model read (tool_result content)", replace(5, `"content":"PASS"`, `"content":"PASS (edited)"`), "output (what the model read) differs"},
		{"toolUseResult", replace(5, `"stdout":"PASS"`, `"stdout":"FAIL"`), "differs  call Bash tu-test (seq 5,6,7): input matched, input matched, output differs"},
		{"tool input (tool_use)", replace(4, `go test`, `go vet`), "differs  call Bash tu-test"},
		{"prompt", replace(1, `fix it`, `fix it now`), "differs  prompt (seq 1)"},
		{"final message", replace(6, `tests pass`, `tests passed`), "differs  final message (seq 8)"},
		{"removed line: prompt", remove(1), "EVIDENCE"},
		{"removed line: tool_use", remove(4), "absent   call Bash tu-test"},
		{"removed line: tool_result", remove(5), "call Bash tu-test"},
		{"removed line: final message", remove(6), "final message (seq 8)"},
		{"removed line: second prompt", remove(7), "EVIDENCE"},
		{"removed lines: a whole call (tool_use and tool_result)", order(1, 2, 3, 6, 7, 8, 9, 10), "absent   call Bash tu-test"},
		{"reordered lines: the two prompts swapped", order(7, 2, 3, 4, 5, 6, 1, 8, 9, 10), "moved    prompt"},
		{"reordered lines: tool_result before its tool_use", order(1, 2, 3, 5, 4, 6, 7, 8, 9, 10), "moved    call Bash tu-test"},
		{"reordered lines: two calls swapped", order(1, 4, 5, 2, 3, 6, 7, 8, 9, 10), "moved    call"},
		{"reordered lines: a call moved into the first turn", order(1, 2, 3, 4, 5, 8, 9, 6, 7, 10), "moved    call Bash tu-lint"},
		{"reordered lines: final messages swapped", order(1, 2, 3, 4, 5, 10, 7, 8, 9, 6), "final message"},
		// What the record never saw (issue 32): each was exit 0.
		{"inserted lines: a call the record never saw", insert(5, strings.NewReplacer("tu-test", "tu-evil", "go test", "curl evil.example", "m2", "m2b"), 4, 5),
			"REFUSED EVIDENCE_UNRECORDED: the transcript holds 1 call(s) the record does not name (first tu-evil)"},
		{"inserted line: a prompt", insert(5, strings.NewReplacer("and lint", "also delete the backups"), 7),
			"REFUSED EVIDENCE_UNRECORDED: the transcript holds 1 prompt(s) the record does not have (first at line 6)"},
		{"inserted line: a second result for a call, after the real one", insert(5, strings.NewReplacer(`"content":"PASS"`, `"content":"FAIL: 3 tests"`), 5),
			"REFUSED EVIDENCE_UNRECORDED: the transcript holds a second input or result for 1 call(s) (first tu-test)"},
		{"inserted prompt, and a call moved into the first turn", func(l []string) []string {
			return insert(1, strings.NewReplacer("fix it", "first this"), 1)(order(1, 2, 3, 4, 5, 8, 9, 6, 7, 10)(l))
		}, "moved    call Bash tu-lint"},
	}
	var table strings.Builder
	table.WriteString("| transcript edit | exit | code | verdict line |\n|---|---|---|---|\n")
	for i, c := range cases {
		l := c.edit(append([]string(nil), lines...))
		f := writeTemp(t, dir, fmt.Sprintf("t%d.jsonl", i), []byte(strings.Join(l, "\n")+"\n"))
		code, out := runVerify(t, recFile, "--evidence", f)
		wantCode := 1
		if c.name == "untouched" {
			wantCode = 0
		}
		if code != wantCode || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d and %q in\n%s", c.name, code, wantCode, c.want, out)
		}
		refused := ""
		if strings.HasPrefix(out, "REFUSED ") {
			refused = strings.SplitN(strings.TrimPrefix(out, "REFUSED "), ":", 2)[0]
		}
		if (code == 1) != (refused != "") {
			t.Errorf("%s: exit %d, and the first line is %q", c.name, code, strings.SplitN(out, "\n", 2)[0])
		}
		fmt.Fprintf(&table, "| %s | %d | %s | %s |\n", c.name, code, refused, strings.SplitN(lastLine(out), ":", 2)[0])
	}
	t.Logf("\n%s", table.String())
}

// TestEvidenceUnheld: a record without PostToolBatch steps (older Claude
// Code, a record made from a transcript) holds no digest of the result
// text the model read, so an edit of that text alone cannot be seen: the
// evidence is refused EVIDENCE_UNHELD, edited or not, unless
// --allow-unheld says the reader accepts that; then the edit passes, and
// the summary says what was allowed.
func TestEvidenceUnheld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	orig := strings.Join(twoTurns(), "\n") + "\n"
	events, _, err := transcript.Convert(strings.NewReader(orig), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := transcript.WriteJSONL(&buf, events); err != nil {
		t.Fatal(err)
	}
	rec, err := reviewtest.Record(strings.Split(strings.TrimSpace(buf.String()), "\n"))
	if err != nil {
		t.Fatal(err)
	}
	recFile := writeTemp(t, dir, "r.json", rec)
	read := writeTemp(t, dir, "read.jsonl", []byte(strings.Replace(orig, `"content":"PASS"`, `"content":"PASS (edited)"`, 1)))
	for _, f := range []string{writeTemp(t, dir, "t.jsonl", []byte(orig)), read} {
		code, out := runVerify(t, recFile, "--evidence", f)
		if code != 1 || !strings.HasPrefix(out, "REFUSED EVIDENCE_UNHELD: 3 call(s) whose result the model read has no digest in the record") ||
			!strings.Contains(out, "EVIDENCE UNPROVEN") {
			t.Errorf("%s: %d %s", f, code, out)
		}
		var v struct {
			OK   bool
			Code *string
		}
		var o, e bytes.Buffer
		if st := run([]string{"--json", recFile, "--evidence", f}, &o, &e); st != 1 || json.Unmarshal(o.Bytes(), &v) != nil || v.OK || v.Code == nil || *v.Code != "EVIDENCE_UNHELD" {
			t.Errorf("%s --json: %d %s %s", f, st, o.String(), e.String())
		}
	}
	code, out := runVerify(t, recFile, "--evidence", read, "--allow-unheld")
	if code != 0 || !strings.Contains(out, "calls whose result the model read has no digest in the record: 3 (allowed)") {
		t.Errorf("--allow-unheld: %d %s", code, out)
	}
}
