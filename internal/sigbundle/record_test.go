package sigbundle_test

import (
	"bytes"
	"crypto/ed25519"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/sigbundle"
	"github.com/logbook-project/logbook/internal/verdict"
)

// The record's signer and the attestor, fixed so that a failure can be
// reproduced byte for byte.
var (
	sealKey   = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32))
	attestKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, 32))
)

// sealed returns a sealed record of session id whose steps name commits
// (each named twice: once by the agent's call, once by a hook).
func sealed(t testing.TB, id string, commits ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	at := "2026-03-01T10:00:00Z"
	p := `{"session_id":"` + id + `","cwd":"/w","hook_event_name":"SessionStart","source":"startup"}`
	if _, err := recorder.Record(dir, []byte(p), at, "/w", recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	var steps []chain.Step
	for _, c := range commits {
		f := gitfacts.Commit{ID: c, Tree: c, PatchID: c}
		steps = append(steps, gitstep.CommitStep(f), gitstep.CommitStep(f))
	}
	if err := gitstep.Append(dir, id, steps, func() string { return at }); err != nil {
		t.Fatal(err)
	}
	j, err := journalfile.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	res, err := seal.Seal(j, sealKey, seal.Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	return res.Record
}

// factsOf verifies data as logbook-verify does and returns what a
// bundle says of it.
func factsOf(t testing.TB, data []byte) sigbundle.Facts {
	t.Helper()
	var col verdict.Collect
	in := verdict.Inputs{Record: data, Pinned: []ed25519.PublicKey{sealKey.Public().(ed25519.PublicKey)}}
	in.Top, in.EachStep = col.Chain(nil, nil)
	out := verdict.Run(in)
	if err := out.Err(); err != nil {
		t.Fatal(err)
	}
	return verdict.Facts(in, out, &col)
}
