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
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/wrap"
)

// TestOneShotMatchesLogbookSeal: the in-process seal of --out, from the
// journal held open through the run and the key derived while the
// command ran, gives the very bytes logbook-seal (logbook.Seal, with the
// full self-check) gives for the same journal, key, goal and clock, and
// the record verifies.
func TestOneShotMatchesLogbookSeal(t *testing.T) {
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
	seed, err := keySeed(keyPEM)
	if err != nil || !bytes.Equal(seed, priv.Seed()) {
		t.Fatalf("keySeed: %v", err)
	}
	const now = "2026-03-01T10:00:00Z"
	getenv := func(k string) string {
		if k == "LOGBOOK_NOW" {
			return now
		}
		return ""
	}
	a, b := t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "r.json")
	o := &oneShot{tmp: a, session: "one-shot", out: out}
	if o.j, err = journalfile.Open(a, o.session); err != nil {
		t.Fatal(err)
	}
	defer o.j.Close()
	pr := o.prepare(seed, durable.OSOps)
	if pr.err != nil || !bytes.Equal(pr.priv, priv) {
		t.Fatalf("prepare: %v", pr.err)
	}
	cmd := wrap.Command{Args: []string{truePath, "x"}, Dir: a, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	if res := o.run(cmd, wrap.Options{Now: func() string { return now }, Recorder: "logbook-wrap"}); res.Err != nil || res.Steps != 2 {
		t.Fatalf("%+v", res)
	}
	if err := os.CopyFS(b, os.DirFS(a)); err != nil { // the same journal, sealed twice
		t.Fatal(err)
	}
	if err := o.seal("the goal", pr, getenv); err != nil {
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
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("record mode: %v %v", st.Mode(), err)
	}
	// Sealing again onto the same bytes is a no-op; onto another record, a
	// refusal; neither leaves the temporary file behind.
	if err := o.seal("the goal", o.prepare(seed, durable.OSOps), getenv); err != nil {
		t.Fatalf("same bytes again: %v", err)
	}
	if err := o.seal("another goal", o.prepare(seed, durable.OSOps), getenv); err == nil {
		t.Fatal("replaced another record")
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, got) {
		t.Fatal("the record changed")
	}
	if _, err := os.Stat(filepath.Join(a, recordTmp)); err == nil {
		t.Fatal("temporary file left")
	}
}
