package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic starts a fake Anthropic Messages API (POST /v1/messages, with
// "stream": true answered as server-sent events). Point a CLI at it with
// ANTHROPIC_BASE_URL=s.URL and any ANTHROPIC_API_KEY.
//
// A request that offers tools is one of the agent's turns and is answered
// from the script; one without tools (a title, a summary) gets a short
// text. Token counting (POST /v1/messages/count_tokens) answers 1 token.
func Anthropic(script *Script) (*Server, error) {
	return start(func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
		req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body}
		switch {
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens"):
			s.keep(req)
			writeJSON(w, map[string]any{"input_tokens": 1})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
			var m messagesRequest
			if err := json.Unmarshal(body, &m); err != nil {
				s.keep(req)
				http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`, http.StatusBadRequest)
				return
			}
			turn := Turn{Text: "ok"}
			if len(m.Tools) > 0 {
				req.Scripted = true
				req.Turn = m.replies()
				turn = script.turn(m.firstUser(), req.Turn)
			}
			s.keep(req)
			id := fmt.Sprintf("msg_fake%04d", len(s.Requests()))
			if m.Stream {
				streamMessage(w, id, m.Model, turn)
			} else {
				writeJSON(w, message(id, m.Model, turn))
			}
		default:
			s.keep(req)
			http.NotFound(w, r)
		}
	})
}

type messagesRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// replies counts the model's replies already in the conversation.
func (m *messagesRequest) replies() int {
	n := 0
	for _, msg := range m.Messages {
		if msg.Role == "assistant" {
			n++
		}
	}
	return n
}

// firstUser is the text of the first user message (a string, or the text
// blocks of a content array).
func (m *messagesRequest) firstUser() string {
	for _, msg := range m.Messages {
		if msg.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(msg.Content, &s) == nil {
			return s
		}
		var blocks []struct {
			Type, Text string
		}
		json.Unmarshal(msg.Content, &blocks)
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
			b.WriteByte('\n')
		}
		return b.String()
	}
	return ""
}

func stopReason(t Turn) string {
	if len(t.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func usage() map[string]any {
	return map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func message(id, model string, t Turn) map[string]any {
	var content []any
	if t.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": t.Text})
	}
	for _, c := range t.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": inputObject(c.Input)})
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stopReason(t), "stop_sequence": nil, "usage": usage(),
	}
}

// streamMessage sends t as the Messages API streams it: message_start, a
// start, delta(s) and stop per content block, message_delta, message_stop.
func streamMessage(w http.ResponseWriter, id, model string, t Turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage(),
	}})
	i := 0
	if t.Text != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": t.Text}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	for _, c := range t.Calls {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(inputObject(c.Input))}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stopReason(t), "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
