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
