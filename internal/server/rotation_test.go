package server_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/rotation"
	"github.com/logbook-project/logbook/internal/server"
	"github.com/logbook-project/logbook/internal/verdict"
)

// TestKeyRotation: the server hands its key over with a rotation note
// signed by both keys. From then on the new key signs every checkpoint and
// seal, a session open across the hand-over included; a record sealed
// before it still verifies under the old key; the old key no longer
// starts the server; /v1/key lists the old key and the note.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	f := newServer(t, nil)
	f.record(t, http.DefaultClient, "sess-before", 4, true)
	f.record(t, http.DefaultClient, "sess-across", 4, false)
	_, oldRec := get(t, f.ts.URL+"/v1/sessions/sess-before/record")
	_, oldCP := get(t, f.ts.URL+"/v1/sessions/sess-before/checkpoint")
	f.ts.Close()
	f.srv.Close()

	newKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{8}, 32))
	newPub := newKey.Public().(ed25519.PublicKey)
	r, err := rotation.Sign(f.opts.Origin, f.key, newKey, time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := rotation.Append(f.opts.Dir, r); err != nil {
		t.Fatal(err)
	}
	if _, err := server.New(f.opts); err == nil || !strings.Contains(err.Error(), "rotated out") {
		t.Fatalf("the old key starts the server: %v", err)
	}
	cfg := f.opts
	cfg.Key = newKey
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	f.ts = ts
	f.record(t, http.DefaultClient, "sess-across", 2, true)

	// A verifier that trusts the old key follows the rotation note to the new one.
	data, err := os.ReadFile(filepath.Join(f.opts.Dir, rotation.File))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := rotation.Chain(data, f.opts.Origin, f.pub)
	if err != nil || len(chain) != 1 || !bytes.Equal(chain[0].New, newPub) {
		t.Fatalf("chain: %v", err)
	}
	both := []checkpoint.Key{{Pub: f.pub}, {Pub: newPub}}
	run := func(rec, cp []byte, pinned []ed25519.PublicKey, cpKeys []checkpoint.Key) verdict.Outcome {
		return verdict.Run(verdict.Inputs{Record: rec, Pinned: pinned, Checkpoints: [][]byte{cp}, CheckpointKeys: cpKeys})
	}
	// Old records keep verifying, under the old key.
	if o := run(oldRec, oldCP, []ed25519.PublicKey{f.pub, newPub}, both); !o.Result.OK || o.Level != checkpoint.LevelServer {
		t.Fatalf("record sealed before the rotation: %+v", o.Result)
	}
	// The session open across it is sealed, and checkpointed, by the new key.
	_, rec := get(t, ts.URL+"/v1/sessions/sess-across/record")
	_, cp := get(t, ts.URL+"/v1/sessions/sess-across/checkpoint")
	if o := run(rec, cp, []ed25519.PublicKey{newPub}, both); !o.Result.OK || o.Level != checkpoint.LevelServer || o.Result.StepCount < 6 {
		t.Fatalf("session across the rotation: %+v", o.Result)
	}
	if o := run(rec, cp, []ed25519.PublicKey{f.pub}, []checkpoint.Key{{Pub: f.pub}}); o.Result.OK {
		t.Fatal("a seal after the rotation verifies under the old key alone")
	}
	// And revoking the old key (had it leaked) refuses what it sealed.
	if o := verdict.Run(verdict.Inputs{Record: oldRec, Revoked: []ed25519.PublicKey{f.pub}}); o.Result.Code != "KEY_REVOKED" {
		t.Fatalf("revoked old key: %+v", o.Result)
	}

	var k struct {
		KeyID        string `json:"keyId"`
		PreviousKeys []struct {
			KeyID, PublicKey, VerifierKey, Until string
		} `json:"previousKeys"`
		Rotations []string `json:"rotations"`
	}
	_, body := get(t, ts.URL+"/v1/key")
	if err := json.Unmarshal(body, &k); err != nil {
		t.Fatal(err)
	}
	if k.KeyID != checkpoint.KeyID(newPub) || len(k.PreviousKeys) != 1 || k.PreviousKeys[0].KeyID != checkpoint.KeyID(f.pub) ||
		k.PreviousKeys[0].Until != "2026-03-01T12:00:00Z" || len(k.Rotations) != 1 {
		t.Fatalf("/v1/key: %s", body)
	}
	if _, err := rotation.Open([]byte(k.Rotations[0]), f.opts.Origin, f.pub); err != nil {
		t.Fatalf("/v1/key rotation note: %v", err)
	}
	// The well-known key is the key in force.
	code, pem := get(t, ts.URL+server.WellKnownKeyPath)
	if got, err := keys.ParsePublicKeyPEM(pem); code != 200 || err != nil || !bytes.Equal(got, newPub) {
		t.Fatalf("well-known key: %d %v %s", code, err, pem)
	}
}

// TestWellKnownKey: the key is served as SPKI PEM without a token (it is
// public; fetching it out of band is its use), and only to GET.
func TestWellKnownKey(t *testing.T) {
	t.Parallel()
	f := newServer(t, func(c *server.Config, _ *http.Server) { c.Token = "secret-token" })
	resp, err := http.Get(f.ts.URL + server.WellKnownKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if got, err := keys.ParsePublicKeyPEM(b.Bytes()); resp.StatusCode != 200 || err != nil || !bytes.Equal(got, f.pub) ||
		resp.Header.Get("Content-Type") != "application/x-pem-file" {
		t.Fatalf("%d %s %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	if code, _ := get(t, f.ts.URL+"/v1/key"); code != 401 {
		t.Fatalf("/v1/key without the token: %d", code)
	}
	if code, _ := post(t, http.DefaultClient, f.ts.URL+server.WellKnownKeyPath, nil); code != 405 {
		t.Fatalf("POST: %d", code)
	}
}
