package rotation

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func key(b byte) ed25519.PrivateKey { return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, 32)) }

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// TestChain: two rotations chain A → B → C; the server starts with C
// only; each key's hand-over is checked from the key before it.
func TestChain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := key(1), key(2), key(3)
	r1, err := Sign("srv.example", a, b, t0)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Sign("srv.example", b, c, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Rotation{r1, r2} {
		if err := Append(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Load(dir, "srv.example", pub(c))
	if err != nil || len(rs) != 2 || !bytes.Equal(rs[0].Old, pub(a)) || !bytes.Equal(rs[1].New, pub(c)) || !rs[1].At.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Load: %v %+v", err, rs)
	}
	for _, k := range []ed25519.PrivateKey{a, b} {
		if _, err := Load(dir, "srv.example", pub(k)); err == nil || !strings.Contains(err.Error(), "rotated out") {
			t.Errorf("a rotated-out key starts the server: %v", err)
		}
	}
	if _, err := Load(dir, "srv.example", pub(key(9))); err == nil || !strings.Contains(err.Error(), "not the newest key") {
		t.Errorf("a stranger's key starts the server: %v", err)
	}
	if _, err := Load(dir, "other.example", pub(c)); err == nil {
		t.Error("the chain is accepted under another origin")
	}
	// A verifier that trusts A follows the file to C.
	data, _ := os.ReadFile(filepath.Join(dir, File))
	if rs, err := Chain(data, "srv.example", pub(a)); err != nil || len(rs) != 2 {
		t.Errorf("Chain from A: %v", err)
	}
	// One that trusts only a stranger follows nothing.
	if rs, err := Chain(data, "srv.example", pub(key(9))); err == nil || len(rs) != 0 {
		t.Errorf("Chain from a stranger: %d %v", len(rs), err)
	}
}

// TestOpenRefuses: a hand-over without the old key's signature (anyone
// holding a new key could claim the server), without the new key's
// (the new key's holder never agreed), or edited, does not open.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	a, b := key(1), key(2)
	r, err := Sign("srv.example", a, b, t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(r.Note, "srv.example", pub(a)); err != nil {
		t.Fatalf("good note: %v", err)
	}
	text, sigs, _ := bytes.Cut(r.Note, []byte("\n\n"))
	lines := bytes.SplitAfter(sigs, []byte("\n"))
	onlyOld := append(append(append([]byte{}, text...), "\n\n"...), lines[0]...)
	onlyNew := append(append(append([]byte{}, text...), "\n\n"...), lines[1]...)
	edited := bytes.Replace(r.Note, []byte("at 2026-03-01T10:00:00Z"), []byte("at 2026-03-01T09:00:00Z"), 1)
	forged, _ := Sign("srv.example", key(7), b, t0) // a stranger hands "srv" over
	for name, msg := range map[string][]byte{"only old": onlyOld, "only new": onlyNew, "edited": edited, "stranger": forged.Note, "empty": nil} {
		if _, err := Open(msg, "srv.example", pub(a)); err == nil {
			t.Errorf("%s: opened", name)
		}
	}
	if _, err := Sign("srv.example", a, a, t0); err == nil {
		t.Error("a rotation to the same key")
	}
}
