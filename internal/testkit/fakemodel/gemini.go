package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Gemini starts a fake Gemini API: POST /v1beta/models/MODEL:generateContent,
// :streamGenerateContent (?alt=sse: server-sent events; else one JSON
// array) and :countTokens. Point Gemini CLI at it with
// GOOGLE_GEMINI_BASE_URL=s.URL and any GEMINI_API_KEY.
//
// A request that declares functions is one of the agent's turns and is
// answered from the script, with functionCall parts; one that asks for a
// JSON answer (the CLI's own checks, such as who speaks next) gets
// {"next_speaker":"user"}; anything else a short text.
func Gemini(script *Script) (*Server, error) {
	return start(func(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
		req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body}
		path := r.URL.Path
		method := path[strings.LastIndexByte(path, ':')+1:]
		if r.Method != http.MethodPost || !strings.Contains(path, "/models/") || !strings.Contains(path, ":") {
			s.keep(req)
			http.NotFound(w, r)
			return
		}
		if method == "countTokens" {
			s.keep(req)
			writeJSON(w, map[string]any{"totalTokens": 1})
			return
		}
		var g generateRequest
		if err := json.Unmarshal(body, &g); err != nil {
			s.keep(req)
			http.Error(w, `{"error":{"code":400,"message":"bad JSON","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
			return
		}
		var parts []any
		switch {
		case g.declaresFunctions():
			req.Scripted = true
			req.Turn = g.replies()
			t := script.turn(g.firstUser(), req.Turn)
			if t.Text != "" {
				parts = append(parts, map[string]any{"text": t.Text})
			}
			for _, c := range t.Calls {
				parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": inputObject(c.Input)}})
			}
		case strings.Contains(g.GenerationConfig.ResponseMimeType, "json"):
			parts = []any{map[string]any{"text": `{"next_speaker":"user","reasoning":"scripted"}`}}
		default:
			parts = []any{map[string]any{"text": "ok"}}
		}
		s.keep(req)
		resp := map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": parts},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
			"modelVersion":  strings.TrimSuffix(path[strings.LastIndex(path, "/models/")+len("/models/"):], ":"+method),
		}
		switch {
		case method == "streamGenerateContent" && r.URL.Query().Get("alt") == "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			sse(w, "", resp)
		case method == "streamGenerateContent":
			writeJSON(w, []any{resp})
		default:
			writeJSON(w, resp)
		}
	})
}

type generateRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (g *generateRequest) declaresFunctions() bool {
	for _, t := range g.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

// replies counts the model's turns already in the conversation.
func (g *generateRequest) replies() int {
	n := 0
	for _, c := range g.Contents {
		if c.Role == "model" {
			n++
		}
	}
	return n
}

func (g *generateRequest) firstUser() string {
	for _, c := range g.Contents {
		if c.Role == "user" {
			var b strings.Builder
			for _, p := range c.Parts {
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
			return b.String()
		}
	}
	return ""
}
