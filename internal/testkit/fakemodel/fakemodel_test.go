package fakemodel

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

var script = &Script{
	Turns: []Turn{{Text: "Looking.", Calls: []ToolCall{
		{ID: "toolu_1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
		{ID: "toolu_2", Name: "Read", Input: json.RawMessage(`{"file_path":"/etc/hosts"}`)},
	}}},
	Agents: map[string][]Turn{"SUBTASK": {{Calls: []ToolCall{{ID: "toolu_s", Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`)}}}}},
}

func TestAnthropicStream(t *testing.T) {
	s, err := Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := post(t, s.URL+"/v1/messages?beta=true", `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}`)
	// The partial JSON of each tool call, in order, then tool_use as the stop reason.
	var inputs []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "data: ") {
			continue
		}
		var ev struct {
			Type  string
			Delta struct {
				Type        string
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			}
		}
		if err := json.Unmarshal([]byte(l[6:]), &ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if ev.Delta.Type == "input_json_delta" {
			inputs = append(inputs, ev.Delta.PartialJSON)
		}
		if ev.Type == "message_delta" && ev.Delta.StopReason != "tool_use" {
			t.Errorf("stop reason %q", ev.Delta.StopReason)
		}
	}
	if strings.Join(inputs, "|") != `{"command":"ls"}|{"file_path":"/etc/hosts"}` {
		t.Errorf("inputs %q", inputs)
	}
	// The next turn ends the loop; a sub-agent gets its own script; a
	// request without tools is a side request.
	out = post(t, s.URL+"/v1/messages", `{"model":"m","tools":[{}],"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[]}]}`)
	if !strings.Contains(out, `"end_turn"`) || !strings.Contains(out, "Done.") {
		t.Errorf("second turn: %s", out)
	}
	out = post(t, s.URL+"/v1/messages", `{"model":"m","tools":[{}],"messages":[{"role":"user","content":[{"type":"text","text":"do the SUBTASK"}]}]}`)
	if !strings.Contains(out, `"Grep"`) {
		t.Errorf("sub-agent: %s", out)
	}
	post(t, s.URL+"/v1/messages", `{"model":"m","messages":[{"role":"user","content":"title?"}]}`)
	reqs := s.Requests()
	if len(reqs) != 4 || len(s.Scripted()) != 3 || reqs[1].Turn != 1 || reqs[3].Scripted {
		t.Errorf("requests: %+v", reqs)
	}
}

func TestGemini(t *testing.T) {
	s, err := Gemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"run_shell_command"}]}]}`
	out := post(t, s.URL+"/v1beta/models/g:streamGenerateContent?alt=sse", body)
	if !strings.HasPrefix(out, "data: ") || !strings.Contains(out, `"functionCall":{"args":{"command":"ls"},"name":"Bash"}`) {
		t.Errorf("stream: %s", out)
	}
	out = post(t, s.URL+"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"application/json"}}`)
	if !strings.Contains(out, "next_speaker") {
		t.Errorf("json request: %s", out)
	}
	if r := s.Requests(); len(r) != 2 || !r[0].Scripted || r[1].Scripted || !bytes.Equal(r[0].Body, []byte(body)) {
		t.Errorf("requests: %+v", r)
	}
}

// TestOpenAIResponses: a Responses API stream holds each scripted call as
// a function_call item, ends with response.completed, and counts turns
// from the last prompt (a resumed session starts its own script).
func TestOpenAIResponses(t *testing.T) {
	s, err := OpenAI(&Script{
		Turns:  []Turn{{Text: "Looking.", Calls: []ToolCall{{ID: "call_1", Name: "exec_command", Input: json.RawMessage(`{"cmd":"ls"}`)}}}},
		Agents: map[string][]Turn{"AGAIN": {{Calls: []ToolCall{{ID: "call_2", Name: "exec_command", Input: json.RawMessage(`{"cmd":"pwd"}`)}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := post(t, s.URL+"/v1/responses", `{"model":"m","stream":true,"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context/>"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`)
	for _, want := range []string{"event: response.created", `"call_id":"call_1"`, `"arguments":"{\"cmd\":\"ls\"}"`, "event: response.output_item.done", "event: response.completed"} {
		if !strings.Contains(first, want) {
			t.Errorf("first turn: no %s in\n%s", want, first)
		}
	}
	if strings.LastIndex(first, "event: ") != strings.Index(first, "event: response.completed") {
		t.Errorf("response.completed is not the last event:\n%s", first)
	}
	hist := `{"type":"message","role":"user","content":"go"},{"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"x"}`
	done := post(t, s.URL+"/v1/responses", `{"model":"m","tools":[{}],"input":[`+hist+`]}`)
	if !strings.Contains(done, `"text":"Done."`) || strings.Contains(done, "function_call") {
		t.Errorf("second turn: want Done., got\n%s", done)
	}
	again := post(t, s.URL+"/v1/responses", `{"model":"m","tools":[{}],"input":[`+hist+`,{"type":"message","role":"user","content":"AGAIN please"}]}`)
	if !strings.Contains(again, `"call_id":"call_2"`) {
		t.Errorf("resumed prompt: want call_2, got\n%s", again)
	}
	if got := len(s.Scripted()); got != 3 {
		t.Errorf("%d scripted requests, want 3", got)
	}
	if r := post(t, s.URL+"/v1/responses", `{bad`); !strings.Contains(r, "bad JSON") {
		t.Errorf("bad JSON: %s", r)
	}
}
