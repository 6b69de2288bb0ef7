package checkpoint_test

import (
	"crypto/ed25519"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
)

// POST /v1/verify takes both the checkpoints and the keys from its caller:
// n copies of a note under k copies of a key must not cost n × k key
// checks (600 KB of form once kept the server busy for 50 s).
func TestOpenAllCostLinear(t *testing.T) {
	priv := key(1)
	pub := priv.Public().(ed25519.PublicKey)
	s, _ := checkpoint.NewSigner("logbook.example", priv)
	msg, err := s.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	var notes [][]byte
	var keys []checkpoint.Key
	for i := range n {
		notes = append(notes, msg)
		keys = append(keys, checkpoint.Key{Pub: pub}, checkpoint.Key{Pub: key(byte(i%200 + 2)).Public().(ed25519.PublicKey)})
	}
	calls := 0
	weak := func([]byte) string { calls++; return "" }
	out := checkpoint.OpenAll(notes, keys, weak)
	if len(out) != n {
		t.Fatalf("opened %d of %d", len(out), n)
	}
	for i, o := range out {
		if o.Err != nil {
			t.Fatalf("note %d: %v", i, o.Err)
		}
	}
	if calls > 2*n {
		t.Fatalf("%d notes under %d keys: %d weak-key checks", n, len(keys), calls)
	}
	// Past the first note that does not open, nothing is opened: the
	// verdict stops there.
	bad := append([][]byte{[]byte("junk\n")}, notes...)
	if out := checkpoint.OpenAll(bad, keys, nil); len(out) != 1 || out[0].Err == nil {
		t.Fatalf("after a bad note: %d opened", len(out))
	}
}
