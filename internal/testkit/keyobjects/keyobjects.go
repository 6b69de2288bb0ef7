// Package keyobjects is the one list of the embedded-key forms a runback
// cassette's "pubkey" may take as Node's createPublicKey reads them (key
// objects, JWK, PEM, DER), with the signature check runback gives each.
// cmd/logbook-verify's TestCassetteKeyObjects runs them through the
// command, e2e's TestCassetteKeyObjectsInBrowser through the page
// (web/js/cassette.js) and the command side by side: for tests only.
package keyobjects

import (
	"encoding/base64"
	"encoding/hex"
)

// Case is one embedded key and the signature check it must give on a
// cassette signed by that key.
type Case struct {
	Name string
	Key  any    // the value of manifest.signature.pubkey, as JSON
	Sig  string // "valid" or "invalid"
}

// Cases are the forms of the Ed25519 key whose SPKI DER is der and whose
// PEM text is pemText.
func Cases(der []byte, pemText string) []Case {
	x := base64.RawURLEncoding.EncodeToString(der[12:])
	jwk := JWK(der)
	return []Case{
		{"jwk key object", map[string]any{"key": jwk, "format": "jwk"}, "valid"},
		{"jwk with d (public half read from x)", map[string]any{"key": map[string]any{"kty": "OKP", "crv": "Ed25519", "x": x, "d": x}, "format": "jwk"}, "valid"},
		{"jwk x in standard base64 with padding", map[string]any{"key": map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.StdEncoding.EncodeToString(der[12:])}, "format": "jwk"}, "valid"},
		{"bare jwk: Node throws", jwk, "invalid"},
		{"jwk of another curve", map[string]any{"key": map[string]any{"kty": "OKP", "crv": "X25519", "x": x}, "format": "jwk"}, "invalid"},
		{"jwk of RSA", map[string]any{"key": map[string]any{"kty": "RSA", "n": "AQAB", "e": "AQAB"}, "format": "jwk"}, "invalid"},
		{"jwk x too short", map[string]any{"key": map[string]any{"kty": "OKP", "crv": "Ed25519", "x": x[:40]}, "format": "jwk"}, "invalid"},
		{"pem in a key object", map[string]any{"key": pemText}, "valid"},
		{"pem with format pem", map[string]any{"key": pemText, "format": "pem"}, "valid"},
		{"pem in base64 with format pem", map[string]any{"key": base64.StdEncoding.EncodeToString([]byte(pemText)), "format": "pem", "encoding": "base64"}, "valid"},
		{"der spki base64", map[string]any{"key": base64.StdEncoding.EncodeToString(der), "format": "der", "type": "spki", "encoding": "base64"}, "valid"},
		{"der spki hex", map[string]any{"key": hex.EncodeToString(der), "format": "der", "type": "spki", "encoding": "hex"}, "valid"},
		{"der spki latin1", map[string]any{"key": latin1(der), "format": "der", "type": "spki", "encoding": "latin1"}, "valid"},
		{"der spki hex, encoding in capitals", map[string]any{"key": hex.EncodeToString(der), "format": "der", "type": "spki", "encoding": "HEX"}, "valid"},
		{"der without type: Node throws", map[string]any{"key": base64.StdEncoding.EncodeToString(der), "format": "der", "encoding": "base64"}, "invalid"},
		{"der pkcs1 type", map[string]any{"key": base64.StdEncoding.EncodeToString(der), "format": "der", "type": "pkcs1", "encoding": "base64"}, "invalid"},
		{"unknown format", map[string]any{"key": pemText, "format": "raw"}, "invalid"},
		{"unknown encoding", map[string]any{"key": pemText, "encoding": "utf-7"}, "invalid"},
		{"key not a string", map[string]any{"key": 7}, "invalid"},
		{"array", []any{pemText}, "invalid"},
	}
}

// JWK is the bare JSON Web Key of the Ed25519 key whose SPKI DER is der.
func JWK(der []byte) map[string]any {
	return map[string]any{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(der[12:])}
}

// latin1 is b as a string of the code points 0-255, one per byte (what
// Buffer.from(s, "latin1") turns back into b).
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}
