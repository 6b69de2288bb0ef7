package main

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestCassetteMeasuredClasses: signature and key classes from the
// measurement against runback's own verifier (docs/runback.md §11) that no
// other test pins. Each want is the verdict, exit status and signature
// state runback's verifier gave for the same edit of the Ed25519 or HMAC
// sample, with the test key pinned (--pubkey) and the HMAC key given.
func TestCassetteMeasuredClasses(t *testing.T) {
	t.Parallel()
	dir := corpora.Require(t, "samples/runback", "runback's sample cassettes")
	pub, hk := filepath.Join(dir, "testkey.ed25519.pub.pem"), filepath.Join(dir, "testkey.hmac.txt")
	tmp := t.TempDir()
	pemOf := func(k any) string {
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	}
	x, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sig := func(m map[string]any) map[string]any {
		return m["manifest"].(map[string]any)["signature"].(map[string]any)
	}
	toB64 := func(s map[string]any) {
		raw, err := hex.DecodeString(s["value"].(string))
		if err != nil {
			t.Fatal(err)
		}
		s["value"] = base64.StdEncoding.EncodeToString(raw)
	}
	for _, c := range []struct {
		name, sample string
		edit         func(m map[string]any)
		exit         int
		verdict      string
		state        string
	}{
		{"ed25519 value in base64", "ed25519", func(m map[string]any) { toB64(sig(m)) }, 1, "invalid", "invalid"},
		{"ed25519 value cut short", "ed25519", func(m map[string]any) { s := sig(m); s["value"] = s["value"].(string)[:126] }, 1, "invalid", "invalid"},
		{"ed25519 value all zero", "ed25519", func(m map[string]any) { sig(m)["value"] = strings.Repeat("00", 64) }, 1, "invalid", "invalid"},
		{"embedded PEM with CRLF", "ed25519", func(m map[string]any) {
			s := sig(m)
			s["pubkey"] = strings.ReplaceAll(s["pubkey"].(string), "\n", "\r\n")
		}, 0, "valid", "valid"},
		{"embedded X25519 key", "ed25519", func(m map[string]any) { sig(m)["pubkey"] = pemOf(x.PublicKey()) }, 1, "invalid", "invalid"},
		{"embedded P-256 key", "ed25519", func(m map[string]any) { sig(m)["pubkey"] = pemOf(&p256.PublicKey) }, 1, "invalid", "invalid"},
		{"embedded key not PEM", "ed25519", func(m map[string]any) { sig(m)["pubkey"] = "not a key" }, 1, "invalid", "invalid"},
		{"alg lower-case ed25519 is checked as HMAC", "ed25519", func(m map[string]any) { sig(m)["alg"] = "ed25519" }, 1, "invalid", "invalid"},
		{"hmac value in base64", "hmac", func(m map[string]any) { toB64(sig(m)) }, 1, "invalid", "invalid"},
		{"hmac value one digit long", "hmac", func(m map[string]any) { s := sig(m); s["value"] = s["value"].(string) + "0" }, 1, "invalid", "invalid"},
		{"hmac alg missing", "hmac", func(m map[string]any) { delete(sig(m), "alg") }, 0, "valid", "valid"},
		{"schema an object", "ed25519", func(m map[string]any) { m["$schema"] = map[string]any{"v": 2} }, 1, "invalid", "valid"},
		{"schema null", "ed25519", func(m map[string]any) { m["$schema"] = nil }, 1, "invalid", "valid"},
		{"schema in other case", "ed25519", func(m map[string]any) { m["$schema"] = "Runback.audit/v2" }, 1, "invalid", "valid"},
	} {
		name := "sample-cassette.ed25519-testkey.json"
		if c.sample == "hmac" {
			name = "sample-cassette.hmac-testkey.json"
		}
		m := sampleCassette(t, name)
		c.edit(m)
		file := filepath.Join(tmp, strings.ReplaceAll(c.name, " ", "-")+".json")
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, verdict, state := verifyCLI(t, "--json", "--cassette", "--pubkey", pub, "--hmac-key", hk, file)
		if code != c.exit || verdict != c.verdict || state != c.state {
			t.Errorf("%s: exit %d %s %s, want exit %d %s %s (runback's)", c.name, code, verdict, state, c.exit, c.verdict, c.state)
		}
	}
}
