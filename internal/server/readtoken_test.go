package server_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/logbook-project/logbook/internal/server"
)

// TestReadToken: with a read token, the hook token (which the agent's
// hooks send, so the agent holds it) records events but reads nothing:
// a session's record, checkpoint and tlog-proof answer 401 to it, and to
// no token; the read token reads them.
func TestReadToken(t *testing.T) {
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.Token, c.ReadToken = "hook-token", "read-token" })
	send := func(tok string, body []byte) int {
		req, _ := http.NewRequest("POST", f.ts.URL+"/v1/hooks/claude-code", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, b := range [][]byte{event("rt-1", "SessionStart", 0), event("rt-1", "PreToolUse", 1), event("rt-1", "SessionEnd", 0)} {
		if code := send("hook-token", b); code != 200 {
			t.Fatalf("hook with the hook token: %d", code)
		}
	}
	if code := send("read-token", event("rt-1", "PostToolUse", 1)); code != 401 {
		t.Errorf("hook with the read token: %d, want 401", code)
	}
	read := func(path, tok string) int {
		req, _ := http.NewRequest("GET", f.ts.URL+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, p := range []string{"/v1/sessions/rt-1/record", "/v1/sessions/rt-1/checkpoint", "/v1/sessions/rt-1/tlog-proof", "/v1/sessions/rt-1/attestation"} {
		for tok, want := range map[string]int{"": 401, "hook-token": 401} {
			if code := read(p, tok); code != want {
				t.Errorf("GET %s with %q: %d, want %d", p, tok, code, want)
			}
		}
		if code := read(p, "read-token"); code == 401 {
			t.Errorf("GET %s with the read token: 401", p)
		}
	}
}

// TestReadsNeedAToken: the zero Config (no token of any kind, OpenReads
// false) records events but serves no record, checkpoint or proof: each
// read is 401 UNAUTHORIZED naming --read-token-file and --open-reads.
// With OpenReads they are served without a token.
func TestReadsNeedAToken(t *testing.T) {
	for _, open := range []bool{false, true} {
		f := newServer(t, func(c *server.Config, _ *http.Server) { c.OpenReads = open })
		f.record(t, http.DefaultClient, "closed", 2, true)
		for _, p := range []string{"/v1/sessions/closed/record", "/v1/sessions/closed/checkpoint", "/v1/sessions/closed/record-checkpoint"} {
			code, body := get(t, f.ts.URL+p)
			switch {
			case open && code != 200:
				t.Errorf("--open-reads: GET %s: %d %s", p, code, body)
			case !open && (code != 401 || decodeErr(t, string(body)).Error != "UNAUTHORIZED" || !bytes.Contains(body, []byte("--open-reads")) || !bytes.Contains(body, []byte("--read-token-file"))):
				t.Errorf("no token: GET %s: %d %s", p, code, body)
			}
		}
	}
}
