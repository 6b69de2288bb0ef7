package hookevent

import (
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// dataOf returns the step's data as a map of JSON texts.
func dataOf(t *testing.T, ev Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range ev.Step.Data.Members {
		switch m.Value.Kind {
		case strictjson.String, strictjson.Number:
			out[m.Key] = m.Value.Str
		case strictjson.Array:
			var s []string
			for _, it := range m.Value.Items {
				s = append(s, it.Str)
			}
			out[m.Key] = strings.Join(s, ",")
		case strictjson.True:
			out[m.Key] = "true"
		case strictjson.False:
			out[m.Key] = "false"
		}
	}
	return out
}

func sha(s string) string { return digest.Bytes([]byte(s)) }

// TestLaterEvents: the events Claude Code 2.1.3xx sends beyond the first
// fifteen, with the fields the real CLI sends (e2e/realharness_test.go
// saw them): each has its kind, names what it is about, and digests every
// body it carries, in order.
func TestLaterEvents(t *testing.T) {
	base := `"session_id":"s","cwd":"/p","prompt_id":"p-1",`
	cases := []struct {
		payload string
		kind    string
		data    map[string]string
		inputs  []string
		outputs []string
	}{
		{`{` + base + `"hook_event_name":"PostToolBatch","tool_calls":[{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","tool_response":"a\nb"},{"tool_name":"TaskCreate","tool_input":{"subject":"x"},"tool_use_id":"t2","tool_response":"<tool_use_error>no such tool</tool_use_error>"}]}`,
			"note", map[string]string{"event": "PostToolBatch", "tools": "Bash,TaskCreate", "toolUseIds": "t1,t2", "turnId": "p-1"},
			[]string{digest.Bytes([]byte(`{"command":"ls"}`)), digest.Bytes([]byte(`{"subject":"x"}`))},
			[]string{sha("a\nb"), sha("<tool_use_error>no such tool</tool_use_error>")}},
		{`{` + base + `"hook_event_name":"PreModelSwitch","from_model":"claude-opus-5-5","to_model":"claude-haiku-5","requested_model":"haiku","source":"command"}`,
			"note", map[string]string{"fromModel": "claude-opus-5-5", "toModel": "claude-haiku-5", "requestedModel": "haiku", "source": "command"}, nil, nil},
		{`{` + base + `"hook_event_name":"TaskCreated","task_id":"3","task_subject":"Write the report","task_description":"all of it","agent_id":"a1","agent_type":"general-purpose"}`,
			"note", map[string]string{"taskId": "3", "agentId": "a1", "agentType": "general-purpose"}, []string{sha("Write the report"), sha("all of it")}, nil},
		{`{` + base + `"hook_event_name":"TaskCompleted","task_id":"3","task_subject":"Write the report"}`,
			"note", map[string]string{"taskId": "3"}, []string{sha("Write the report")}, nil},
		{`{` + base + `"hook_event_name":"CwdChanged","old_cwd":"/p","new_cwd":"/p/sub"}`,
			"note", map[string]string{"oldCwd": "/p", "newCwd": "/p/sub"}, nil, nil},
		{`{` + base + `"hook_event_name":"FileChanged","file_path":"/p/.envrc","event":"change"}`,
			"note", map[string]string{"path": ".envrc", "change": "change"}, nil, nil},
		{`{` + base + `"hook_event_name":"InstructionsLoaded","file_path":"/p/CLAUDE.md","memory_type":"Project","load_reason":"session_start"}`,
			"note", map[string]string{"path": "CLAUDE.md", "memoryType": "Project", "loadReason": "session_start"}, nil, nil},
		{`{` + base + `"hook_event_name":"Elicitation","mcp_server_name":"db","message":"Password?","mode":"form","requested_schema":{"type":"object"},"elicitation_id":"e1"}`,
			"note", map[string]string{"mcpServer": "db", "mode": "form", "elicitationId": "e1"}, []string{sha("Password?"), digest.Bytes([]byte(`{"type":"object"}`))}, nil},
		{`{` + base + `"hook_event_name":"ElicitationResult","mcp_server_name":"db","action":"accept","content":{"password":"hunter2"},"elicitation_id":"e1"}`,
			"gate", map[string]string{"action": "accept", "mcpServer": "db"}, nil, []string{digest.Bytes([]byte(`{"password":"hunter2"}`))}},
		{`{` + base + `"hook_event_name":"WorktreeCreate","name":"agent-1"}`, "note", map[string]string{"name": "agent-1"}, nil, nil},
		{`{` + base + `"hook_event_name":"WorktreeRemove","worktree_path":"/p/.claude/worktrees/agent-1"}`, "note", map[string]string{"path": ".claude/worktrees/agent-1"}, nil, nil},
		{`{` + base + `"hook_event_name":"ConfigChange","source":"project_settings","file_path":"/p/.claude/settings.json"}`, "note", map[string]string{"source": "project_settings", "path": ".claude/settings.json"}, nil, nil},
		{`{` + base + `"hook_event_name":"Setup","trigger":"init"}`, "note", map[string]string{"trigger": "init"}, nil, nil},
		{`{` + base + `"hook_event_name":"TeammateIdle","teammate_name":"bob","team_name":"t"}`, "note", map[string]string{"teammateName": "bob", "teamName": "t"}, nil, nil},
		{`{` + base + `"hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"review","command_args":"--token abc","command_source":"project","prompt":"Review it"}`,
			"note", map[string]string{"commandName": "review", "expansionType": "slash_command"}, []string{sha("Review it"), sha("--token abc")}, nil},
		{`{` + base + `"hook_event_name":"MessageDisplay","turn_id":"x","message_id":"m1","index":0,"final":true,"delta":"Looking around."}`,
			"note", map[string]string{"messageId": "m1", "index": "0", "final": "true", "turnId": "p-1"}, nil, []string{sha("Looking around.")}},
		{`{` + base + `"hook_event_name":"DirectoryAdded","directory":"/p/lib","source":"command"}`, "note", map[string]string{"path": "lib", "source": "command"}, nil, nil},
		// A sub-agent's tool call names its agent; the turn is prompt_id.
		{`{` + base + `"hook_event_name":"PreToolUse","agent_id":"ae1","agent_type":"general-purpose","tool_name":"Bash","tool_input":{"command":"echo sub"},"tool_use_id":"toolu_s1"}`,
			"exec", map[string]string{"agentId": "ae1", "agentType": "general-purpose", "turnId": "p-1", "toolUseId": "toolu_s1"}, []string{digest.Bytes([]byte(`{"command":"echo sub"}`))}, nil},
	}
	for _, c := range cases {
		ev, err := Parse([]byte(c.payload))
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		d := dataOf(t, ev)
		if ev.Step.Kind != c.kind {
			t.Errorf("%s: kind %q, want %q", d["event"], ev.Step.Kind, c.kind)
		}
		for k, want := range c.data {
			if d[k] != want {
				t.Errorf("%s: data.%s = %q, want %q (data %v)", d["event"], k, d[k], want, d)
			}
		}
		if strings.Join(ev.Step.Inputs, ",") != strings.Join(c.inputs, ",") || strings.Join(ev.Step.Outputs, ",") != strings.Join(c.outputs, ",") {
			t.Errorf("%s: inputs %v outputs %v, want %v %v", d["event"], ev.Step.Inputs, ev.Step.Outputs, c.inputs, c.outputs)
		}
		if strings.Contains(ev.Step.Summary, "hunter2") || strings.Contains(ev.Step.Summary, "Write the report") {
			t.Errorf("%s: a body in the summary: %q", d["event"], ev.Step.Summary)
		}
	}
}

// TestGeminiExitCode: Gemini CLI 0.61 sends a failed shell command as a
// plain AfterTool whose llmContent says "Exit Code: 3" (payload as the
// real CLI sent it): a PostToolUseFailure with its exit code.
func TestGeminiExitCode(t *testing.T) {
	p := `{"session_id":"s","cwd":"/p","hook_event_name":"AfterTool","timestamp":"2026-12-01T19:40:39.936Z","tool_name":"run_shell_command","tool_input":{"command":"echo hi; exit 3"},"tool_response":{"llmContent":"<untrusted_context>\nOutput: hi\nExit Code: 3\nProcess Group PGID: 6063\n</untrusted_context>","returnDisplay":"hi"}}`
	ev, err := Parse([]byte(p))
	if err != nil {
		t.Fatal(err)
	}
	d := dataOf(t, ev)
	if ev.Name != "PostToolUseFailure" || d["exitCode"] != "3" || !strings.HasPrefix(ev.Step.Summary, "PostToolUseFailure run_shell_command: exit 3:") || len(ev.Step.Outputs) != 1 {
		t.Errorf("%s %v %q %v", ev.Name, d, ev.Step.Summary, ev.Step.Outputs)
	}
	ok := strings.Replace(strings.Replace(p, `\nExit Code: 3`, ``, 1), "exit 3", "true", 1)
	if ev, _ := Parse([]byte(ok)); ev.Name != "PostToolUse" {
		t.Errorf("a command without an exit code line: %s", ev.Name)
	}
}
