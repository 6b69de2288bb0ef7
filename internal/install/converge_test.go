package install

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// TestInstallConverges: install run again with other flags makes the
// hooks what it was asked for: from recording here to --server, to a new
// server URL, with the key a server now answers since a token was
// exported, and with a server's rotated key. Before, each said "already
// installed; nothing changed", left the settings byte for byte, and then
// printed notes describing the new settings as in force. The user's own
// hook stays; the same install again changes nothing.
func TestInstallConverges(t *testing.T) {
	t.Parallel()
	keyHex := func(seed byte) string {
		return hex.EncodeToString(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32)).Public().(ed25519.PublicKey))
	}
	var key atomic.Value // the key the servers answer now
	key.Store(keyHex(1))
	var token atomic.Value // what GET /v1/key wants; "" none
	token.Store("")
	serve := func(w http.ResponseWriter, r *http.Request) {
		if tok := token.Load().(string); tok != "" && r.Header.Get("Authorization") != "Bearer "+tok {
			w.WriteHeader(401)
			return
		}
		w.Write([]byte(`{"publicKey":"` + key.Load().(string) + `"}`))
	}
	srv1, srv2 := httptest.NewServer(http.HandlerFunc(serve)), httptest.NewServer(http.HandlerFunc(serve))
	defer srv1.Close()
	defer srv2.Close()
	bin := t.TempDir()
	for _, b := range []string{"record-step", "logbook-seal"} {
		os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	project := t.TempDir()
	settings := filepath.Join(project, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	mine := `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}` + "\n"
	os.WriteFile(settings, []byte(mine), 0o644)
	env := map[string]string{"HOME": t.TempDir()}
	install := func(server string) (string, []byte) {
		t.Helper()
		var stdout, stderr strings.Builder
		o := Options{Verb: "install", Harness: "gemini", Project: project, Bin: bin, Server: server, NoKey: true}
		if code := Run(o, &stdout, &stderr, func(k string) string { return env[k] }, time.Now()); code != Done {
			t.Fatalf("install --server %q: exit %d: %s", server, code, stderr.String())
		}
		b, _ := os.ReadFile(settings)
		if !strings.Contains(string(b), "echo mine") {
			t.Fatalf("install --server %q took out the user's own hook:\n%s", server, b)
		}
		return stdout.String(), b
	}
	converged := func(step, stdout string, before, after []byte, want, gone string) {
		t.Helper()
		if bytes.Equal(before, after) || strings.Contains(stdout, "already installed; nothing changed") {
			t.Errorf("%s: the settings were left as they were:\n%s", step, stdout)
		}
		if !strings.Contains(string(after), want) {
			t.Errorf("%s: the hooks do not hold %q:\n%s", step, want, after)
		}
		if gone != "" && strings.Contains(string(after), gone) {
			t.Errorf("%s: the hooks still hold %q:\n%s", step, gone, after)
		}
		if !strings.Contains(stdout, "rewritten to match") {
			t.Errorf("%s: stdout does not say the hooks were rewritten:\n%s", step, stdout)
		}
	}

	_, local := install("")
	out, a := install(srv1.URL)
	converged("local -> --server", out, local, a, "--server "+srv1.URL+" --server-key "+keyHex(1), "logbook-seal --hook")
	out, b := install(srv2.URL)
	converged("a new server URL", out, a, b, "--server "+srv2.URL+" --server-key "+keyHex(1), srv1.URL)

	token.Store("t0ken") // the server now wants a token: none is pinned without it
	_, c := install(srv1.URL)
	if strings.Contains(string(c), "--server-key") {
		t.Fatalf("a key pinned though the server refused to give it:\n%s", c)
	}
	env["LOGBOOK_SERVER_TOKEN"] = "t0ken"
	out, d := install(srv1.URL)
	converged("a token now exported", out, c, d, "--server-key "+keyHex(1), "")

	key.Store(keyHex(2))
	out, e := install(srv1.URL)
	converged("a rotated server key", out, d, e, "--server-key "+keyHex(2), keyHex(1))

	out, f := install(srv1.URL)
	if !bytes.Equal(e, f) || !strings.Contains(out, "already installed; nothing changed") {
		t.Errorf("the same install again changed the settings:\n%s", out)
	}
}

// TestInstallRefusesHandWrittenHook: a logbook hook install did not write
// (no --harness of its own), which is not what install is asked for, is
// not touched, and install refuses, naming what to do; before, it said
// "already installed" and described the asked-for server as in force.
func TestInstallRefusesHandWrittenHook(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	project := t.TempDir()
	settings := filepath.Join(project, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	hand := `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "/opt/record-step --dir /tmp/x"}]}]}}` + "\n"
	os.WriteFile(settings, []byte(hand), 0o644)
	var stdout, stderr strings.Builder
	o := Options{Verb: "install", Harness: "gemini", Project: project, Bin: bin, Server: "http://127.0.0.1:9", ServerKey: hex.EncodeToString(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32)).Public().(ed25519.PublicKey))}
	code := Run(o, &stdout, &stderr, func(string) string { return "" }, time.Now())
	after, _ := os.ReadFile(settings)
	if code != Refused || string(after) != hand || !strings.Contains(stderr.String(), "by hand, then run this install again") {
		t.Fatalf("exit %d, stderr %q, settings:\n%s", code, stderr.String(), after)
	}
}

// TestInstallKeepsPolicyGate: hooks that apply an organization policy are
// not rewritten without it by an install that does not mention it (one run
// to refresh the binaries would have taken the gate off): it refuses,
// changes nothing, and names the two commands, to keep it or to take it off.
func TestInstallKeepsPolicyGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	proj, bin := filepath.Join(dir, "proj"), filepath.Join(dir, "bin")
	for _, d := range []string{proj, bin} {
		os.MkdirAll(d, 0o755)
	}
	for _, b := range []string{"record-step", "logbook-seal", "logbook-policy"} {
		os.WriteFile(filepath.Join(bin, b), []byte("#!/bin/sh\n"), 0o755)
	}
	privPEM, pubPEM, err := keys.Generate()
	if err != nil {
		t.Fatal(err)
	}
	priv, _ := keys.ParsePrivateKeyPEM(privPEM)
	signed, _, err := orgpolicy.Sign([]byte(`{"version":"logbook/policy@0","name":"t","rules":[]}`), priv)
	if err != nil {
		t.Fatal(err)
	}
	pol, pub := filepath.Join(dir, "policy.json"), filepath.Join(dir, "org.pub")
	os.WriteFile(pol, signed, 0o644)
	os.WriteFile(pub, pubPEM, 0o644)
	getenv := func(string) string { return "" }
	var stdout, stderr strings.Builder
	o := Options{Verb: "install", Harness: "gemini", Project: proj, Bin: bin, NoKey: true, Policy: pol, PolicyKeys: []string{pub}}
	if code := Run(o, &stdout, &stderr, getenv, time.Now()); code != Done {
		t.Fatalf("install --policy: exit %d: %s", code, stderr.String())
	}
	settings := filepath.Join(proj, ".gemini", "settings.json")
	before, _ := os.ReadFile(settings)
	o.Policy, o.PolicyKeys = "", nil
	stderr.Reset()
	code := Run(o, &stdout, &stderr, getenv, time.Now())
	after, _ := os.ReadFile(settings)
	if code != Refused || !bytes.Equal(before, after) || !strings.Contains(string(after), " --policy ") {
		t.Fatalf("install without --policy: exit %d, settings changed %v: %s", code, !bytes.Equal(before, after), stderr.String())
	}
	if !strings.Contains(stderr.String(), "record-step uninstall --harness gemini --project "+proj) {
		t.Errorf("stderr does not name the uninstall command: %s", stderr.String())
	}
}
