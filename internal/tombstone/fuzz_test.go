package tombstone

import (
	"crypto/ed25519"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// FuzzRead: whatever file claims to be a tombstone, Read and Describe
// answer without panicking, and Check holds only for a tombstone whose
// signature verifies under the key it names.
func FuzzRead(f *testing.F) {
	key := ed25519.NewKeyFromSeed(make([]byte, 32))
	good, err := Sign(Tombstone{Session: "s-1", Tenant: "acme", Developer: "dev1", DeletedBy: "admin", Reason: "policy", StepCount: 3}, key)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"v":"` + Format + `"}`))
	f.Add([]byte(strings.Replace(string(good), `"stepCount":3`, `"stepCount":-1`, 1)))
	f.Add([]byte(strings.Replace(string(good), `"stepCount":3`, `"stepCount":1e400`, 1)))
	f.Add([]byte(strings.Replace(string(good), `"reason":"policy"`, `"reason":7`, 1)))
	f.Add([]byte(strings.Replace(string(good), `"reason":"policy"`, `"reason":"policy","reason":"x"`, 1)))
	pub := key.Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := strictjson.Parse(b, strictjson.Options{MaxDepth: 8})
		if err != nil {
			return
		}
		if !Is(v) {
			return
		}
		_ = Describe(v, []ed25519.PublicKey{pub})
		tb, err := Read(v)
		if err != nil {
			return
		}
		if sound, _ := Check(tb, nil); sound {
			if _, err := tb.Signed(); err != nil {
				t.Fatalf("sound, yet its signed part cannot be made: %v", err)
			}
		}
	})
}
