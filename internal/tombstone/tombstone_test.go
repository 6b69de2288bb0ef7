package tombstone

import (
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/edsign"
	"github.com/logbook-project/logbook/internal/strictjson"
)

func TestSignRead(t *testing.T) {
	key, _ := edsign.NewKeyFromSeed(make([]byte, 32))
	other, _ := edsign.NewKeyFromSeed([]byte(strings.Repeat("x", 32)))
	b, err := Sign(Tombstone{Session: "s-1", RecordSHA256: strings.Repeat("a", 64), ChainTip: strings.Repeat("b", 64), StepCount: 7,
		DeletedAt: "2026-12-01T00:00:00Z", DeletedBy: "retention: keep 30 days", Reason: "policy"}, key)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strictjson.Parse(b[:len(b)-1], strictjson.Options{})
	if err != nil || !Is(v) {
		t.Fatalf("%s: %v", b, err)
	}
	tb, err := Read(v)
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	if sound, pinned := Check(tb, []ed25519.PublicKey{pub}); !sound || !pinned {
		t.Errorf("own key: %v %v", sound, pinned)
	}
	if sound, pinned := Check(tb, []ed25519.PublicKey{other.Public().(ed25519.PublicKey)}); !sound || pinned {
		t.Errorf("other key: %v %v", sound, pinned)
	}
	tb.Reason = "edited"
	if sound, _ := Check(tb, nil); sound {
		t.Error("an edited tombstone verifies")
	}
	if d := Describe(v, []ed25519.PublicKey{pub}); !strings.Contains(d, "deleted at 2026-12-01T00:00:00Z by retention: keep 30 days: policy") || !strings.Contains(d, "signed by the pinned key") {
		t.Error(d)
	}
	v.Members = append(v.Members, strictjson.Member{Key: "extra", Value: strictjson.Str("")})
	if _, err := Read(v); err == nil {
		t.Error("an extra member is read")
	}
}
