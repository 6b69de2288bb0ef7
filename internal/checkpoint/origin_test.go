package checkpoint_test

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
)

// TestOriginMismatchNamed: the pinned key signed the checkpoint, but under
// the origin of a server started without --name. The refusal stays
// CHECKPOINT_INVALID (ErrNotSigned) and names the two origins and the
// flag; a checkpoint another key signed gets no such hint.
func TestOriginMismatchNamed(t *testing.T) {
	t.Parallel()
	priv := key(1)
	pub := priv.Public().(ed25519.PublicKey)
	s, err := checkpoint.NewSigner("logbook-server/vm", priv)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := s.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	pinned := checkpoint.Key{Name: "logbook.example.org", Pub: pub}
	_, err = checkpoint.Open(msg, []checkpoint.Key{pinned}, nil)
	if !errors.Is(err, checkpoint.ErrNotSigned) {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{`under origin "logbook-server/vm", not "logbook.example.org"`, "--name logbook.example.org", "KEY.pub"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	other := checkpoint.Key{Name: "logbook.example.org", Pub: key(2).Public().(ed25519.PublicKey)}
	if _, err := checkpoint.Open(msg, []checkpoint.Key{other}, nil); !errors.Is(err, checkpoint.ErrNotSigned) || strings.Contains(err.Error(), "--name") {
		t.Errorf("another key: %v", err)
	}
}
