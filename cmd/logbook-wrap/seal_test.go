package main

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/wrap"
)

// TestSealHereMatchesLogbookSeal: the in-process seal of --out gives the
// very bytes logbook-seal (logbook.Seal, with the full self-check) gives
// for the same journal, key, goal and clock, and the record verifies.
func TestSealHereMatchesLogbookSeal(t *testing.T) {
	t.Parallel()
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true")
	}
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	keyPEM, _, err := keys.MarshalPair(priv, priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := checkKey(keyPEM)
	if err != nil || !bytes.Equal(parsed, priv) {
		t.Fatalf("checkKey: %v", err)
	}
	const now = "2026-03-01T10:00:00Z"
	getenv := func(k string) string {
		if k == "LOGBOOK_NOW" {
			return now
		}
		return ""
	}
	a, b := t.TempDir(), t.TempDir()
	cmd := wrap.Command{Args: []string{truePath, "x"}, Dir: a, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	if _, err := wrap.Run(a, "one-shot", cmd, wrap.Options{Now: func() string { return now }, Recorder: "logbook-wrap"}); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(b, os.DirFS(a)); err != nil { // the same journal, sealed twice
		t.Fatal(err)
	}
	out := filepath.Join(a, "r.json")
	if err := sealHere(a, "one-shot", out, "the goal", parsed, getenv); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := logbook.Seal(b, "one-shot", priv, logbook.SealOptions{Goal: "the goal", Now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Record) {
		t.Fatalf("in-process seal differs from logbook-seal's:\n%s\n%s", got, want.Record)
	}
	if err := record.SelfCheck(got); err != nil {
		t.Fatal(err)
	}
	// Sealing again onto the same bytes is a no-op; onto another record, a refusal.
	if err := sealHere(a, "one-shot", out, "the goal", parsed, getenv); err != nil {
		t.Fatalf("same bytes again: %v", err)
	}
	if err := sealHere(a, "one-shot", out, "another goal", parsed, getenv); err == nil {
		t.Fatal("replaced another record")
	}
}
