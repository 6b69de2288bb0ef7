package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServerTokenMissingNotice: the hook forwards to a server that wants a
// token, and the agent was started without LOGBOOK_SERVER_TOKEN. At the
// session's start the user is told, on the harness's screen (the hook's
// JSON systemMessage), that recording is off and which variable to
// export; the hook still exits 0. Later events say it on stderr only.
func TestServerTokenMissingNotice(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer right" {
			w.WriteHeader(401)
			w.Write([]byte(`{"error":"UNAUTHORIZED"}`))
			return
		}
	}))
	defer srv.Close()
	start := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`
	for _, tc := range []struct {
		name, token, payload, want string
	}{
		{"no token", "", start, "LOGBOOK_SERVER_TOKEN is not set in the agent's environment"},
		{"wrong token", "wrong", start, "refuses the token in LOGBOOK_SERVER_TOKEN"},
		{"right token", "right", start, ""},
		{"later event", "", event("PreToolUse", "t1"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := func(k string) string {
				switch k {
				case "LOGBOOK_SERVER_TOKEN":
					return tc.token
				case "LOGBOOK_DIR":
					return t.TempDir()
				}
				return ""
			}
			code := run([]string{"--server", srv.URL, "--harness", "claude-code"}, strings.NewReader(tc.payload), &stdout, &stderr, env)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if tc.want == "" {
				if stdout.Len() != 0 {
					t.Fatalf("stdout %q, want nothing", stdout.String())
				}
				return
			}
			var out struct{ SystemMessage string }
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("stdout %q is not one JSON object: %v", stdout.String(), err)
			}
			if !strings.HasPrefix(out.SystemMessage, "logbook: recording is OFF for this session: ") || !strings.Contains(out.SystemMessage, tc.want) {
				t.Errorf("systemMessage %q", out.SystemMessage)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}
