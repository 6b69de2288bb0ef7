package server_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/translog"
)

// TestAttestationAfterKill: a server killed between a session's proof of
// logging and its attestation bundle writes the bundle at its next start,
// the same bytes (signing is deterministic); a reseal removes it with the
// proof, and the new proof brings a new bundle.
func TestAttestationAfterKill(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	var tls []*translog.Log
	withLog := func(c *server.Config) {
		tl, err := translog.Open(context.Background(), translog.Config{Driver: translog.POSIX, Dir: logDir, Origin: "logbook.test/log", Key: c.Key})
		if err != nil {
			t.Fatal(err)
		}
		c.TLog = tl
		tls = append(tls, tl)
	}
	t.Cleanup(func() {
		for _, tl := range tls {
			tl.Close(context.Background())
		}
	})
	wait := func(srv *server.Server) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := srv.WaitProofs(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f := newServer(t, func(c *server.Config, _ *http.Server) { withLog(c) })
	f.record(t, http.DefaultClient, "att-1", 2, true)
	wait(f.srv)
	bundle := filepath.Join(f.opts.Dir, "att-1.record.intoto.json")
	first, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatalf("no bundle beside the proof: %v", err)
	}
	f.ts.Close()
	f.srv.Close()
	tls[0].Close(context.Background())
	os.Remove(bundle) // what a kill between the proof and the bundle leaves

	g := newServer(t, func(c *server.Config, _ *http.Server) { c.Dir = f.opts.Dir; withLog(c) })
	if _, err := g.srv.Resume(); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(bundle)
	if err != nil || !bytes.Equal(again, first) {
		t.Fatalf("at start: %v; the same bytes: %v", err, bytes.Equal(again, first))
	}
	// A late event reseals: the old bundle goes with the old proof, and
	// the new proof's bundle names the longer record.
	g.record(t, http.DefaultClient, "att-1", 1, false)
	g.record(t, http.DefaultClient, "att-1", 0, true)
	wait(g.srv)
	third, err := os.ReadFile(bundle)
	if err != nil || bytes.Equal(third, first) {
		t.Fatalf("after the reseal: %v; still the first bundle: %v", err, bytes.Equal(third, first))
	}
}
