package server_test

import (
	"bytes"
	"net/http"
	"strings"
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

// TestKeyToEitherToken: GET /v1/key (the server's public keys and the
// log's verifier key) answers the read token as well as the hooks'
// token, with and without a fleet, so that a reviewer holding only the
// read token can fetch the keys; no token, or a wrong one, is still 401.
func TestKeyToEitherToken(t *testing.T) {
	plain := newServer(t, func(c *server.Config, _ *http.Server) { c.Token, c.ReadToken = "hook-token", "read-token" })
	ff := newFleet(t)
	for name, url := range map[string]string{"no fleet": plain.ts.URL, "fleet": ff.ts.URL} {
		for tok, want := range map[string]int{"read-token": 200, "hook-token": 200, "": 401, "wrong": 401} {
			code, body := do(t, "GET", url+"/v1/key", tok, nil)
			if code != want {
				t.Errorf("%s: GET /v1/key with %q: %d %s, want %d", name, tok, code, body, want)
			}
			if code == 200 && !strings.Contains(body, `"publicKey"`) {
				t.Errorf("%s: GET /v1/key with %q: %s", name, tok, body)
			}
		}
	}
}
