package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// OpenAI starts a fake OpenAI Responses API: POST /v1/responses (or
// /responses), streamed as server-sent events the way Codex CLI reads
// them (response.created, response.output_item.added and .done for each
// message and function_call item, response.completed with usage). GET
// …/models answers an empty list. Point Codex at it with a model
// provider whose base_url is s.URL+"/v1" and wire_api = "responses".
//
// Turns are counted from the conversation's last user prompt (Codex sends
// the whole history each time, and a resumed session adds a new prompt):
// Turns[i] answers a request holding i scripted replies after that prompt.
// A reply is counted by its function calls, so every scripted turn but the
// last should make at least one. Agents' keys are matched against that
// prompt, so a resumed session can follow a script of its own.
func OpenAI(script *Script) (*Server, error) {
	return start(func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
		req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body}
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
			s.keep(req)
			writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
			var m responsesRequest
			if err := json.Unmarshal(body, &m); err != nil {
				s.keep(req)
				http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
				return
			}
			turn := Turn{Text: "ok"}
			prompt, calls := m.lastPrompt()
			if len(m.Tools) > 0 {
				req.Scripted = true
				turns := script.turns(prompt)
				req.Turn = repliesByCalls(turns, calls)
				turn = script.turnOf(turns, req.Turn)
			}
			s.keep(req)
			streamResponse(w, fmt.Sprintf("resp_fake%04d", len(s.Requests())), m.Model, turn)
		default:
			s.keep(req)
			http.NotFound(w, r)
		}
	})
}

type responsesRequest struct {
	Model string            `json:"model"`
	Tools []json.RawMessage `json:"tools"`
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"input"`
}

// lastPrompt returns the text of the last user message that is a prompt
// (not Codex's own <environment_context> or instructions, which it sends
// as user messages too) and the number of function calls after it.
func (m *responsesRequest) lastPrompt() (prompt string, calls int) {
	for _, it := range m.Input {
		switch {
		case it.Role == "user" && (it.Type == "" || it.Type == "message"):
			text := contentText(it.Content)
			t := strings.TrimSpace(text)
			if t == "" || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md") {
				continue
			}
			prompt, calls = text, 0
		case it.Type == "function_call" || it.Type == "custom_tool_call" || it.Type == "local_shell_call":
			calls++
		}
	}
	return prompt, calls
}

// contentText is the text of a message's content: a string, or the text
// of its input_text / output_text parts.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(c, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// turns is the script the prompt selects: an agent's whose key it holds,
// else the main one.
func (s *Script) turns(prompt string) []Turn {
	for k, t := range s.Agents {
		if strings.Contains(prompt, k) {
			return t
		}
	}
	return s.Turns
}

func (s *Script) turnOf(turns []Turn, i int) Turn {
	if i < len(turns) {
		return turns[i]
	}
	done := s.Done
	if done == "" {
		done = "Done."
	}
	return Turn{Text: done}
}

// repliesByCalls is how many scripted turns the calls made so far cover.
func repliesByCalls(turns []Turn, calls int) int {
	n := 0
	for i, t := range turns {
		if calls < n+len(t.Calls) || len(t.Calls) == 0 {
			return i
		}
		n += len(t.Calls)
	}
	return len(turns)
}

// streamResponse writes turn as a Responses API event stream.
func streamResponse(w http.ResponseWriter, id, model string, turn Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		sse(w, typ, fields)
	}
	resp := map[string]any{"id": id, "object": "response", "model": model, "status": "in_progress", "output": []any{}}
	ev("response.created", map[string]any{"response": resp})
	var output []any
	idx := 0
	item := func(added, done map[string]any) {
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": done})
		output = append(output, done)
		idx++
	}
	if turn.Text != "" {
		mid := fmt.Sprintf("msg_%s_%d", id, idx)
		added := map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}
		ev("response.output_item.added", map[string]any{"output_index": idx, "item": added})
		ev("response.output_text.delta", map[string]any{"item_id": mid, "output_index": idx, "content_index": 0, "delta": turn.Text})
		done := map[string]any{"type": "message", "id": mid, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
		ev("response.output_item.done", map[string]any{"output_index": idx, "item": done})
		output = append(output, done)
		idx++
	}
	for i, c := range turn.Calls {
		callID := c.ID
		if callID == "" {
			callID = fmt.Sprintf("call_%s_%d", id, i)
		}
		fid := fmt.Sprintf("fc_%s_%d", id, i)
		args := string(inputObject(c.Input))
		added := map[string]any{"type": "function_call", "id": fid, "call_id": callID, "name": c.Name, "arguments": "", "status": "in_progress"}
		done := map[string]any{"type": "function_call", "id": fid, "call_id": callID, "name": c.Name, "arguments": args, "status": "completed"}
		item(added, done)
	}
	resp["status"] = "completed"
	resp["output"] = output
	resp["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	ev("response.completed", map[string]any{"response": resp})
}
