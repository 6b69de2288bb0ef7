// Package fakemodel serves scripted model APIs on 127.0.0.1, so that real
// agent CLIs (Claude Code, Gemini CLI, Codex CLI) can be run by tests
// without a network or an account: the Anthropic Messages API (streamed as
// server-sent events, or whole), Gemini's generateContent and
// streamGenerateContent, and OpenAI's Responses API (streamed). A script
// says which tool calls the model makes on each turn; every request is kept, so a test can read what the CLI sent
// back to the model after each tool call (tool results, hook output).
//
// It is not a test file so that every package's tests can use it; nothing
// in the shipped commands imports it.
package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// ToolCall is one tool call the model makes.
type ToolCall struct {
	ID    string          // the tool_use id (Anthropic); Gemini has none
	Name  string          // the tool's name as the CLI knows it: "Bash", "run_shell_command"
	Input json.RawMessage // the arguments, a JSON object
}

// Turn is one model reply: text, then tool calls (sent in one message, so a
// CLI may run them in parallel). A turn without tool calls ends the agent's
// loop.
type Turn struct {
	Text  string
	Calls []ToolCall
}

// Script is what the model says, turn by turn. Turns[i] answers a request
// whose conversation already holds i model replies, so a retried request
// gets the same answer and the script never drifts. Past the last turn the
// model answers Done. Agents holds other scripts, for sub-agents: the first
// one whose key occurs in the request's first user message is used.
type Script struct {
	Turns  []Turn
	Agents map[string][]Turn
	Done   string // the final text; "Done." when empty
}

func (s *Script) turn(firstUser string, replies int) Turn {
	turns := s.Turns
	for k, t := range s.Agents {
		if strings.Contains(firstUser, k) {
			turns = t
			break
		}
	}
	if replies < len(turns) {
		return turns[replies]
	}
	done := s.Done
	if done == "" {
		done = "Done."
	}
	return Turn{Text: done}
}

// Request is one request the server received.
type Request struct {
	Method, Path string
	Body         []byte
	// Scripted is true for a request the script answered (one of the
	// agent's own turns); side requests (titles, token counts, checks)
	// are false.
	Scripted bool
	Turn     int // the turn answered, when Scripted
}

// Server is a fake model API on a loopback port.
type Server struct {
	URL string // http://127.0.0.1:PORT

	ln   net.Listener
	srv  *http.Server
	mu   sync.Mutex
	reqs []Request
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Scripted returns the requests the script answered, in order.
func (s *Server) Scripted() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Scripted {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) keep(r Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// start serves h on 127.0.0.1 at a free port.
func start(h func(s *Server, w http.ResponseWriter, r *http.Request, body []byte)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		h(s, w, r, body)
	})}
	go s.srv.Serve(ln)
	return s, nil
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// inputObject returns in, or {} when it is empty.
func inputObject(in json.RawMessage) json.RawMessage {
	if len(in) == 0 {
		return json.RawMessage(`{}`)
	}
	return in
}
