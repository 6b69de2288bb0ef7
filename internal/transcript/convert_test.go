package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// A small transcript exercising the ordering rules: an unsafe Bash call that
// streamed before its sibling finished must start after it; a validation
// error runs no hooks; a failure gives PostToolUseFailure; the turn ends in
// text, so Stop fires with that text.
const tiny = `{"type":"user","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:00.000Z","permissionMode":"acceptEdits","message":{"role":"user","content":"go <now> & then"}}
{"type":"assistant","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"m1","model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]}}
{"type":"assistant","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:02.000Z","message":{"id":"m1","model":"claude-x","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"make install"}}]}}
{"type":"assistant","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:02.500Z","message":{"id":"m1","model":"claude-x","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/nope"}}]}}
{"type":"user","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"toolUseResult":{"stdout":"ok","stderr":""}}
{"type":"user","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:03.100Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t3","content":"<tool_use_error>File does not exist.</tool_use_error>","is_error":true}]}}
{"type":"user","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"Exit code 2\nboom","is_error":true}]},"toolUseResult":"Error: Exit code 2\nboom"}
{"type":"assistant","sessionId":"s1","cwd":"/home/dev/p","timestamp":"2026-01-01T00:00:05.000Z","message":{"id":"m2","model":"claude-x","content":[{"type":"text","text":"Done <b>."}]}}
`

func TestConvertTiny(t *testing.T) {
	events, st, err := Convert(strings.NewReader(tiny), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.HookEventName+":"+e.ToolUseID)
	}
	want := []string{"SessionStart:", "UserPromptSubmit:", "PreToolUse:t1", "PostToolUse:t1",
		"PreToolUse:t2", "PostToolUseFailure:t2", "Stop:", "SessionEnd:"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order\n got %v\nwant %v", got, want)
	}
	if len(st.Silent) != 1 || st.Silent[0].ToolUseID != "t3" {
		t.Errorf("Silent = %v, want t3", st.Silent)
	}
	if at := events[4].Time.Format(TimeLayout); at != "2026-01-01T00:00:03.000Z" {
		t.Errorf("t2 starts at %s, want when t1 finished", at)
	}

	var buf bytes.Buffer
	if err := WriteJSONL(&buf, events); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	wantLines := map[int]string{
		0: `{"session_id":"s1","transcript_path":"/home/dev/.claude/projects/-home-dev-p/s1.jsonl","cwd":"/home/dev/p","hook_event_name":"SessionStart","source":"startup","model":"claude-x"}`,
		1: `{"session_id":"s1","transcript_path":"/home/dev/.claude/projects/-home-dev-p/s1.jsonl","cwd":"/home/dev/p","permission_mode":"acceptEdits","hook_event_name":"UserPromptSubmit","prompt":"go <now> & then"}`,
		5: `{"session_id":"s1","transcript_path":"/home/dev/.claude/projects/-home-dev-p/s1.jsonl","cwd":"/home/dev/p","permission_mode":"acceptEdits","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make install"},"tool_use_id":"t2","error":"Exit code 2\nboom","is_interrupt":false}`,
		6: `{"session_id":"s1","transcript_path":"/home/dev/.claude/projects/-home-dev-p/s1.jsonl","cwd":"/home/dev/p","permission_mode":"acceptEdits","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done <b>."}`,
		7: `{"session_id":"s1","transcript_path":"/home/dev/.claude/projects/-home-dev-p/s1.jsonl","cwd":"/home/dev/p","hook_event_name":"SessionEnd","reason":"other"}`,
	}
	for i, w := range wantLines {
		if lines[i] != w {
			t.Errorf("line %d\n got %s\nwant %s", i+1, lines[i], w)
		}
	}
	var post map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[3]), &post); err != nil || string(post["tool_response"]) != `{"stdout":"ok","stderr":""}` {
		t.Errorf("PostToolUse tool_response = %s, want the toolUseResult", post["tool_response"])
	}
}

func TestConvertErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":     "{\"type\":\"user\"}\nnot json\n",
		"bad time":     `{"type":"user","sessionId":"s","timestamp":"yesterday"}` + "\n",
		"no sessionId": `{"type":"user","timestamp":"2026-01-01T00:00:00Z"}` + "\n",
	} {
		if _, _, err := Convert(strings.NewReader(in), nil); err == nil {
			t.Errorf("%s: Convert succeeded, want an error", name)
		}
	}
	if _, _, err := Convert(strings.NewReader("{}\nnope\n"), nil); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v should name line 2", err)
	}
}
