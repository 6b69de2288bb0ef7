package server_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/server"
)

// syncBuffer is a log sink the handlers write to concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRefusalLogRedacted: what a client sends (a secret pasted as a
// session id, a harness name, a path, a method) reaches the client in
// the error's detail but never the server's log, which keeps its length
// and a SHA-256 prefix.
func TestRefusalLogRedacted(t *testing.T) {
	const secret = "ghpTOPSECRET0123456789"
	var logs syncBuffer
	f := newServer(t, func(c *server.Config, _ *http.Server) {
		c.Log = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	hook := f.ts.URL + "/v1/hooks/claude-code"
	for _, body := range []string{
		`{"session_id": "` + secret + `!", "hook_event_name": "PreToolUse"}`,
		`{"session_id": "` + secret + `", "hook_event_name": "PreToolUse"`,
		`{"session_id": ["` + secret + `"], "hook_event_name": "PreToolUse"}`,
	} {
		if code, b := post(t, http.DefaultClient, hook, []byte(body)); code != 400 || !strings.Contains(b, `"error"`) {
			t.Fatalf("%s: %d %s", body, code, b)
		}
	}
	for _, p := range []string{"/v1/sessions/" + secret + "!/record", "/v1/sessions/" + secret + "!/checkpoint",
		"/v1/sessions/" + secret + "/record", "/v1/sessions/" + secret + "/checkpoint", "/" + secret} {
		if code, b := get(t, f.ts.URL+p); code != 400 && code != 404 {
			t.Fatalf("GET %s: %d %s", p, code, b)
		}
	}
	code, _ := post(t, http.DefaultClient, f.ts.URL+"/v1/hooks/"+secret, []byte(`{}`))
	if code != 400 {
		t.Fatalf("unknown harness: %d", code)
	}
	req, _ := http.NewRequest(secret, f.ts.URL+"/v1/key", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 {
		t.Fatalf("method: %d", resp.StatusCode)
	}
	out := logs.String()
	if strings.Count(out, `"msg":"refused"`) != 10 {
		t.Fatalf("want 10 refusals logged:\n%s", out)
	}
	if strings.Contains(out, "TOPSECRET") {
		t.Fatalf("the log holds what the client sent:\n%s", out)
	}
	if !strings.Contains(out, "redacted: ") {
		t.Fatalf("no fingerprint in the log:\n%s", out)
	}
}
