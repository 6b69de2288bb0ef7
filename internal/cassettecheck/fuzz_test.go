package cassettecheck_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logbook-project/logbook/internal/cassettecheck"
)

// FuzzVerify: any bytes give a verdict or a named error, never a panic,
// and the --json output is JSON.
func FuzzVerify(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.json"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 20000 {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"manifest":1,"events":[null]}`))
	f.Add([]byte(`{"manifest":1,"events":[{"seq":{"toString":1}},{"seq":2}]}`))
	f.Add([]byte(`{"manifest":{"signature":{"value":["x"],"alg":"Ed25519","pubkey":"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n-----END PUBLIC KEY-----"}},"events":[{"type":"tool","key_projection":{"drop":"a.b"},"input":{"a":[{"b":1}]}}]}`))
	opt := cassettecheck.Options{HMACKeys: [][]byte{[]byte("k")}}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := cassettecheck.Verify(data, opt)
		if err != nil {
			if _, ok := err.(*cassettecheck.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		} else if !slices.Contains([]string{cassettecheck.Valid, cassettecheck.Invalid, cassettecheck.Unverified}, res.Verdict) {
			t.Fatalf("verdict %q", res.Verdict)
		}
		if !json.Valid(cassettecheck.JSON(res, err)) {
			t.Fatalf("--json output is not JSON: %s", cassettecheck.JSON(res, err))
		}
	})
}

// FuzzPublicKey: a --pubkey/--revoked file (PEM, JWK, Node key object)
// gives a 32-byte key or an error, never a panic; an embedded key object
// the same through Verify.
func FuzzPublicKey(f *testing.F) {
	for _, s := range []string{
		"-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAg8KRsNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU=\n-----END PUBLIC KEY-----\n",
		`{"kty":"OKP","crv":"Ed25519","x":"g8KRsNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU"}`,
		`{"key":{"kty":"OKP","crv":"Ed25519","x":"g8KR sNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU="},"format":"jwk"}`,
		`{"key":"MCowBQYDK2VwAyEAg8KRsNeY0pQVF0WDAtifeAYJhf8fgW8N4EzArWiKoLU=","format":"der","type":"spki","encoding":"base64"}`,
		`{"key":"302a300506032b6570032100","format":"der","type":"pkcs8","encoding":"hex"}`,
		`{"key":"\ud800","encoding":"latin1"}`,
		`{"kty":"RSA"}`, `{}`, `{"key":[]}`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := cassettecheck.PublicKey(data)
		if err == nil && len(k) != 32 {
			t.Fatalf("key of %d bytes", len(k))
		}
		cassette := []byte(`{"manifest":{"signature":{"alg":"Ed25519","value":"00","pubkey":` + string(data) + `}},"events":[]}`)
		if _, err := cassettecheck.Verify(cassette, cassettecheck.Options{}); err != nil {
			if _, ok := err.(*cassettecheck.Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
	})
}
