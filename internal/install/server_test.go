package install

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerTokenWarned: install --server asks the server as the hooks
// will. A server that wants a token, and no LOGBOOK_SERVER_TOKEN here, is
// a warning naming the variable (the hooks would record nothing); a wrong
// token too; the right one, or a server without a token, is a note.
func TestServerTokenWarned(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/key" || r.Header.Get("Authorization") != "Bearer right" {
			w.WriteHeader(401)
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	for _, tc := range []struct{ token, stderr, stdout string }{
		{"", "wants a token, and LOGBOOK_SERVER_TOKEN is not set here", ""},
		{"wrong", "refuses the token in LOGBOOK_SERVER_TOKEN", ""},
		{"right", "", "takes the token in LOGBOOK_SERVER_TOKEN"},
	} {
		project := t.TempDir()
		var stdout, stderr strings.Builder
		getenv := func(k string) string {
			if k == "LOGBOOK_SERVER_TOKEN" {
				return tc.token
			}
			return ""
		}
		o := Options{Verb: "install", Harness: "gemini", Project: project, Bin: bin, Server: srv.URL}
		if code := Run(o, &stdout, &stderr, getenv, time.Now()); code != Done {
			t.Fatalf("token %q: exit %d: %s", tc.token, code, stderr.String())
		}
		if tc.stderr != "" && !strings.Contains(stderr.String(), "WARNING: the logbook server at "+srv.URL+" "+strings.SplitN(tc.stderr, " ", 2)[0]) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("token %q: stderr %q", tc.token, stderr.String())
		}
		if tc.stdout != "" && !strings.Contains(stdout.String(), tc.stdout) {
			t.Errorf("token %q: stdout %q", tc.token, stdout.String())
		}
		if tc.stderr == "" && strings.Contains(stderr.String(), "WARNING") {
			t.Errorf("token %q: a warning: %s", tc.token, stderr.String())
		}
	}
}
