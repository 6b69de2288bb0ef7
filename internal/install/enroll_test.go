package install

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/fleet"
	"github.com/logbook-project/logbook/internal/hookpost"
	"github.com/logbook-project/logbook/internal/server"
)

// TestEnroll: install --enroll trades the admin's code at a fleet server
// for the developer's credential, kept 0600 where the hooks read it,
// which the server then takes as that developer; the code does not
// work twice, and a refused code changes nothing.
func TestEnroll(t *testing.T) {
	data := t.TempDir()
	st, err := fleet.OpenStore(data)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Dir: data, Origin: "logbook.test", Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)),
		Fleet: &server.Fleet{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Close()
	code, err := st.Enroll("acme", "dev1", nil, time.Hour, time.Now(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" || k == "APPDATA" {
			return home
		}
		return ""
	}
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "record-step"), []byte("#!/bin/sh\n"), 0o755)
	o := Options{Verb: "install", Harness: "gemini", Project: t.TempDir(), Bin: bin, Server: ts.URL, Enroll: code}
	var stdout, stderr strings.Builder
	if rc := Run(o, &stdout, &stderr, getenv, time.Now()); rc != Done {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	if !strings.Contains(stdout.String(), "enrolled as dev1 in acme") {
		t.Errorf("stdout: %s", stdout.String())
	}
	path := hookpost.CredentialPath(getenv)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file: %v %v", fi, err)
	}
	tok := hookpost.Token(getenv)
	if !strings.HasPrefix(tok, fleet.TokenPrefix) {
		t.Fatalf("hooks send %q", tok)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/v1/hooks/claude-code", strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionStart"}`))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("event with the credential: %v %v", resp.Status, err)
	}
	if o, _ := srv.SessionOwner("s1"); o != (fleet.Owner{Tenant: "acme", Subject: "dev1"}) {
		t.Errorf("owner %+v", o)
	}
	// The code again: refused, the credential kept as it was.
	stderr.Reset()
	if rc := Run(Options{Verb: "install", Harness: "gemini", Project: t.TempDir(), Bin: bin, Server: ts.URL, Enroll: code}, &stdout, &stderr, getenv, time.Now()); rc != Refused {
		t.Errorf("reused code: exit %d", rc)
	}
	if !strings.Contains(stderr.String(), "ENROLL_CODE_USED") || hookpost.Token(getenv) != tok {
		t.Errorf("reused code: %s", stderr.String())
	}
}
