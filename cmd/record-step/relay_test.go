package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// policyServer is a logbook server whose policy decides every call
// decision ("audit": deny, not enforced); it returns the server's URL,
// its public key (hex) and its gate.
func policyServer(t *testing.T, decision string) (string, string, *gate.Gate) {
	t.Helper()
	audit := ""
	if decision == "audit" {
		decision, audit = "deny", `"mode":"audit",`
	}
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","name":"t",` + audit + `"rules":[{"name":"every-call","when":"true","decision":"` + decision + `","reason":"not here"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	g := &gate.Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: p}}
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
	srv, err := server.New(server.Config{Dir: filepath.Join(t.TempDir(), "data"), Origin: "logbook.test", Key: key, Version: "test",
		OpenReads: true, Gate: g, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts.URL, hex.EncodeToString(key.Public().(ed25519.PublicKey)), g
}

// gatedPayloads are the synthesized PreToolUse and PermissionRequest
// payloads of a harness (every dialect has a PreToolUse; Claude Code and
// Codex a PermissionRequest): the first of each tool per event, at most
// three.
func gatedPayloads(t *testing.T, harness string) [][]byte {
	s, _ := synth.Dialect(harness)
	var out [][]byte
	seen := map[string]bool{}
	for _, p := range s.Events {
		ev, err := hookevent.ParseWith(p, hookevent.Hint{Harness: harness})
		if err != nil || !kinds.Gated(ev.Name) || seen[ev.Name] && len(out) >= 3 {
			continue
		}
		seen[ev.Name] = true
		out = append(out, p)
	}
	if !seen["PreToolUse"] {
		t.Fatalf("%s: no PreToolUse payload", harness)
	}
	return out
}

// TestRelayMatchesLocalGate: record-step --server gives its harness the
// answer logbook-policy hook gives when it gates the call itself
// (orgpolicy.AnswerFor for the event's harness, the --harness hint or
// the payload's dialect, and the gate's verdict): the same stdout bytes,
// stderr bytes and exit status, for every dialect, for deny, ask and
// audit mode, on PreToolUse and PermissionRequest, with the server's
// answer signed and checked (--server-key).
func TestRelayMatchesLocalGate(t *testing.T) {
	var blocked, permission atomic.Int32
	for _, decision := range []string{"deny", "ask", "audit"} {
		for _, hinted := range []bool{true, false} {
			url, pub, g := policyServer(t, decision)
			for _, harness := range kinds.Harnesses {
				for i, p := range gatedPayloads(t, harness) {
					name := fmt.Sprintf("%s/%s/%d/hint=%v", decision, harness, i, hinted)
					hint := hookevent.Hint{}
					args := []string{"--dir", t.TempDir(), "--server", url, "--server-key", pub, "--fail-closed"}
					if hinted {
						hint.Harness = harness
						args = append(args, "--harness", harness)
					}
					ev, err := hookevent.ParseWith(p, hint)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					v := g.Check(p, ev)
					h := ev.Harness
					if hint.Harness != "" {
						h = hint.Harness
					}
					want := orgpolicy.AnswerFor(h, ev.Name, v.Result, v.Enforced)
					var stdout, stderr bytes.Buffer
					code := run(args, bytes.NewReader(p), &stdout, &stderr, func(string) string { return "" })
					if code != want.Exit || !bytes.Equal(stdout.Bytes(), want.Stdout) || stderr.String() != want.Stderr {
						t.Errorf("%s (%s): exit %d stdout %q stderr %q; the local gate: exit %d stdout %q stderr %q",
							name, ev.Name, code, stdout.Bytes(), stderr.String(), want.Exit, want.Stdout, want.Stderr)
					}
					if decision == "deny" && (want.Exit == 2 || bytes.Contains(want.Stdout, []byte("deny"))) {
						blocked.Add(1)
					}
					if ev.Name == "PermissionRequest" {
						permission.Add(1)
					}
				}
			}
		}
	}
	// Every dialect's deny blocks (twice: hinted and not), and the
	// PermissionRequests were among the cases.
	if n := blocked.Load(); n < int32(2*len(kinds.Harnesses)) || permission.Load() == 0 {
		t.Errorf("%d blocking denies, %d PermissionRequests", n, permission.Load())
	}
}

// squatter answers every request with status 200, the given headers
// and body: a process on the server's port, or a relay that rewrote the
// answer.
func squatter(t *testing.T, headers map[string]string, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestRelayFailsClosed: a gated call whose answer cannot be confirmed
// is blocked under --fail-closed (exit 2), and let through without it
// (exit 0, said on stderr): the server down, a squatter's unsigned 200
// (an allow) with --server-key, a signed deny whose exit status a relay
// changed, a body that is no command hook's answer, an allow (which the
// server never answers) from whatever answers when no key is pinned. An
// event that is not gated (PostToolUse) is never blocked.
func TestRelayFailsClosed(t *testing.T) {
	url, pub, _ := policyServer(t, "deny")
	pre := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}}`
	post := strings.Replace(pre, "PreToolUse", "PostToolUse", 1)
	// A relay that rewrites the server's signed deny into an allow.
	rewriter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequest("POST", url+r.URL.RequestURI(), r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Set("X-Logbook-Exit", "0")
		w.Header().Set("X-Logbook-Stdout", "0")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(resp.StatusCode)
	}))
	defer rewriter.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	for _, c := range []struct {
		name, url string
		keyed     bool
	}{
		{"server down", down, false},
		{"squatter's empty 200", squatter(t, nil, ""), true},
		{"squatter's forged allow", squatter(t, map[string]string{"X-Logbook-Exit": "0", "X-Logbook-Stdout": "0", "X-Logbook-Session": "s1", "X-Logbook-Size": "2", "X-Logbook-Head": "-", "X-Logbook-Signature": strings.Repeat("ab", 64)}, ""), true},
		{"deny rewritten to allow", rewriter.URL, true},
		{"garbage body", squatter(t, nil, "<html>hello</html>"), false},
		// Nothing pinned: whoever answers is believed, but never its
		// allow, which would skip the harness's own permission rules.
		{"squatter's allow, no key", squatter(t, map[string]string{"X-Logbook-Exit": "0", "X-Logbook-Stdout": "83"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`+"\n"), false},
		{"bad exit status", squatter(t, map[string]string{"X-Logbook-Exit": "7", "X-Logbook-Stdout": "0"}, "x"), false},
	} {
		args := []string{"--server", c.url, "--harness", "claude-code"}
		if c.keyed {
			args = append(args, "--server-key", pub)
		}
		if code, msg := runStep(t, t.TempDir(), pre, append(args, "--fail-closed")...); code != 2 || !strings.Contains(msg, "not recorded (PreToolUse)") || !strings.Contains(msg, "the tool call is blocked (--fail-closed)") {
			t.Errorf("%s, --fail-closed: exit %d %q", c.name, code, msg)
		}
		if code, msg := runStep(t, t.TempDir(), pre, args...); code != 0 || msg == "" || strings.Contains(msg, "blocked") {
			t.Errorf("%s, fail open: exit %d %q", c.name, code, msg)
		}
		if code, msg := runStep(t, t.TempDir(), post, append(args, "--fail-closed")...); code != 0 {
			t.Errorf("%s, PostToolUse: exit %d %q", c.name, code, msg)
		}
	}
	// Through the real server, signed: denied, the reason on stdout.
	var stdout bytes.Buffer
	code := run([]string{"--dir", t.TempDir(), "--server", url, "--server-key", pub, "--harness", "claude-code", "--fail-closed"}, strings.NewReader(pre), &stdout, io.Discard, func(string) string { return "" })
	if code != 0 || !strings.Contains(stdout.String(), `"permissionDecision":"deny"`) {
		t.Errorf("the server's deny: exit %d %s", code, stdout.String())
	}
}
