package jsvalue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestSharedEdgeVectors checks runback's canonical() outputs computed under
// Node for the eight edge vectors, byte for byte, and their SHA-256.
func TestSharedEdgeVectors(t *testing.T) {
	dir := corpora.Require(t, "samples/runback", "runback's 8 canonicalization edge vectors")
	data, err := os.ReadFile(filepath.Join(dir, "canonical-edge-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vecs []struct{ Input, Canonical, Sha256 string }
	if err := json.Unmarshal(data, &vecs); err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 8 {
		t.Fatalf("%d vectors, want 8", len(vecs))
	}
	for i, v := range vecs {
		val, _, err := Parse([]byte(v.Input))
		if err != nil {
			t.Fatalf("vector %d: %v", i, err)
		}
		var e Encoder
		got := e.Append(nil, val, "_hash")
		if string(got) != v.Canonical {
			t.Errorf("vector %d:\n got %s\nwant %s", i, got, v.Canonical)
		}
		sum := sha256.Sum256(got)
		if hex.EncodeToString(sum[:]) != v.Sha256 {
			t.Errorf("vector %d: sha256 %x, want %s", i, sum, v.Sha256)
		}
	}
}

// TestSharedRealEvent recomputes the hash of a real runback.dev event.
func TestSharedRealEvent(t *testing.T) {
	dir := corpora.Require(t, "samples/runback", "the real runback.dev event's hash e9314fcc…")
	data, err := os.ReadFile(filepath.Join(dir, "runback-dev-v1-event0.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var e Encoder
	sum := sha256.Sum256(e.Append(nil, v, "_hash"))
	want := v.Get("_hash").Str
	if got := hex.EncodeToString(sum[:]); got != want || want[:8] != "e9314fcc" {
		t.Fatalf("h1 = %s, want %s", got, want)
	}
}
