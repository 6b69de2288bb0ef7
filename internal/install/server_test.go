package install

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// TestServerUnixSocket: install --server unix:/PATH asks the server over
// its Unix socket (logbook-server --listen unix:/PATH), as record-step
// --server will, not as a URL scheme HTTP does not know; a socket nobody
// listens on is the "does not answer" note.
func TestServerUnixSocket(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "lbsock") // short: a socket path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/key" {
			w.WriteHeader(404)
			return
		}
		w.Write([]byte("{}"))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	run := func(server string) (string, string) {
		var stdout, stderr strings.Builder
		o := Options{Verb: "install", Harness: "gemini", Project: t.TempDir(), Bin: bin, Server: server}
		if code := Run(o, &stdout, &stderr, func(string) string { return "" }, time.Now()); code != Done {
			t.Fatalf("%s: exit %d: %s", server, code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, errs := run("unix:" + sock)
	if !strings.Contains(out, "note: the server at unix:"+sock+" answers without a token") || strings.Contains(out+errs, "unsupported protocol scheme") {
		t.Errorf("listening socket:\n%s%s", out, errs)
	}
	out, errs = run("unix:" + filepath.Join(dir, "nobody"))
	if !strings.Contains(out, "does not answer now") || strings.Contains(out+errs, "unsupported protocol scheme") {
		t.Errorf("socket nobody listens on:\n%s%s", out, errs)
	}
}

// TestServerKeyPinned: install --server asks the server for its key and
// pins it in every record-step --server hook; Claude Code's HTTP hooks,
// which cannot check it, are warned about, and --command-hooks writes
// record-step hooks for every event instead. A given --server-key is
// pinned as is; a small-order one is a usage error.
func TestServerKeyPinned(t *testing.T) {
	t.Parallel()
	pub, _, _ := ed25519.GenerateKey(nil)
	hexKey := hex.EncodeToString(pub)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"publicKey":"` + hexKey + `"}`))
	}))
	defer srv.Close()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	getenv := func(string) string { return "" }
	run := func(o Options) (string, string, string, int) {
		o.Verb, o.Bin, o.Server = "install", bin, srv.URL
		if o.Project == "" {
			o.Project = t.TempDir()
		}
		var stdout, stderr strings.Builder
		code := Run(o, &stdout, &stderr, getenv, time.Now())
		cfg := filepath.Join(o.Project, ".gemini", "settings.json")
		if o.Harness == "claude-code" {
			cfg = filepath.Join(o.Project, ".claude", "settings.json")
		}
		b, _ := os.ReadFile(cfg)
		return string(b), stdout.String(), stderr.String(), code
	}
	cfg, out, errs, code := run(Options{Harness: "gemini"})
	if code != Done || strings.Count(cfg, "--server-key "+hexKey) < 2 || !strings.Contains(out, "signed by the server's key "+hexKey) {
		t.Fatalf("gemini: %d\n%s\n%s%s", code, cfg, out, errs)
	}
	cfg, out, _, _ = run(Options{Harness: "claude-code", NoGuard: true})
	if !strings.Contains(cfg, `"type": "http"`) || !strings.Contains(out, "HTTP hooks cannot check who answers") {
		t.Fatalf("claude-code: no warning about its HTTP hooks:\n%s\n%s", cfg, out)
	}
	cfg, out, _, _ = run(Options{Harness: "claude-code", NoGuard: true, CommandHooks: true})
	if strings.Contains(cfg, `"type": "http"`) || !strings.Contains(cfg, "--server-key "+hexKey) || strings.Contains(out, "HTTP hooks cannot") {
		t.Fatalf("claude-code --command-hooks:\n%s\n%s", cfg, out)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if cfg, _, _, _ := run(Options{Harness: "gemini", ServerKey: hex.EncodeToString(other)}); !strings.Contains(cfg, "--server-key "+hex.EncodeToString(other)) || strings.Contains(cfg, hexKey) {
		t.Fatalf("--server-key given:\n%s", cfg)
	}
	if _, _, errs, code := run(Options{Harness: "gemini", ServerKey: "0100000000000000000000000000000000000000000000000000000000000000"}); code != Usage || !strings.Contains(errs, "small order") {
		t.Fatalf("a small-order key: %d %s", code, errs)
	}
}

// TestServerGatesFailClosed: a server that gates calls with a policy
// (GET /v1/key's "gated") gets fail-closed hooks for the gated events:
// the record-step --server command of Gemini's BeforeTool (and of Claude
// Code's PreToolUse and PermissionRequest under --command-hooks) carries
// --fail-closed and blocks when record-step is missing; the other events
// do not; a server without a policy gets none; Claude Code's HTTP hooks,
// which fail open, are warned about.
func TestServerGatesFailClosed(t *testing.T) {
	t.Parallel()
	pub, _, _ := ed25519.GenerateKey(nil)
	var gated atomic.Bool
	gated.Store(true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"publicKey":"` + hex.EncodeToString(pub) + `","gated":` + strconv.FormatBool(gated.Load()) + `}`))
	}))
	defer srv.Close()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	run := func(o Options) (map[string][]string, string) {
		o.Verb, o.Bin, o.Server, o.Project, o.NoGuard = "install", bin, srv.URL, t.TempDir(), true
		var stdout, stderr strings.Builder
		if code := Run(o, &stdout, &stderr, func(string) string { return "" }, time.Now()); code != Done {
			t.Fatalf("%s: %d %s", o.Harness, code, stderr.String())
		}
		cfg := filepath.Join(o.Project, ".gemini", "settings.json")
		if o.Harness == "claude-code" {
			cfg = filepath.Join(o.Project, ".claude", "settings.json")
		}
		b, _ := os.ReadFile(cfg)
		var doc struct {
			Hooks map[string][]struct {
				Hooks []struct{ Command, URL string }
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		cmds := map[string][]string{}
		for ev, groups := range doc.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					cmds[ev] = append(cmds[ev], h.Command+h.URL)
				}
			}
		}
		return cmds, stdout.String()
	}
	closed := func(cmds []string) bool {
		if len(cmds) == 0 {
			return false
		}
		// The command is one the shell can run (a quote in a message
		// once broke it: every call blocked by a syntax error).
		if out, err := exec.Command("sh", "-n", "-c", cmds[0]).CombinedOutput(); err != nil {
			t.Errorf("%s: %v %s", cmds[0], err, out)
		}
		return strings.Contains(cmds[0], " --fail-closed") && strings.Contains(cmds[0], "exit 2; }")
	}
	cmds, out := run(Options{Harness: "gemini"})
	if !closed(cmds["BeforeTool"]) || closed(cmds["AfterTool"]) || strings.Contains(strings.Join(cmds["AfterTool"], ""), "--fail-closed") ||
		!strings.Contains(out, "are --fail-closed") {
		t.Errorf("gemini, gated server:\n%v\n%s", cmds, out)
	}
	cmds, _ = run(Options{Harness: "claude-code", CommandHooks: true})
	if !closed(cmds["PreToolUse"]) || !closed(cmds["PermissionRequest"]) || strings.Contains(strings.Join(cmds["PostToolUse"], ""), "--fail-closed") {
		t.Errorf("claude-code --command-hooks, gated server:\n%v", cmds)
	}
	if _, out := run(Options{Harness: "claude-code"}); !strings.Contains(out, "HTTP hooks fail open") {
		t.Errorf("claude-code HTTP hooks, gated server: no warning\n%s", out)
	}
	gated.Store(false)
	if cmds, _ := run(Options{Harness: "gemini"}); strings.Contains(strings.Join(cmds["BeforeTool"], ""), "--fail-closed") {
		t.Errorf("gemini, a server without a policy: %v", cmds["BeforeTool"])
	}
}
