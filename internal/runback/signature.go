package runback

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"

	js "github.com/logbook-project/logbook/internal/runback/jsvalue"
)

var (
	algEd25519 = "Ed25519"
	algHMAC    = "HMAC-SHA256"
)

// sigNotes are what the signature check saw that findings report.
type sigNotes struct {
	embedded       ed25519.PublicKey // the key that verified, if any
	privateKeyPEM  bool              // the "pubkey" was a PKCS#8 private key
	nonEd25519     bool              // an SPKI key of another algorithm
	hexGarbage     bool              // value is not an even run of hex digits
	hexUpper       bool              // value uses A-F
	valueNotString bool
	algUnknown     bool // neither "Ed25519" nor "HMAC-SHA256", checked as HMAC
}

// checkSignature is runback's signature check: a manifest.signature with a
// truthy value is Ed25519 when alg is exactly "Ed25519" and HMAC-SHA256
// otherwise, over "content_digest:cassette_digest".
func checkSignature(manifest *js.Value, opt Options, res *Result) (string, *string, error) {
	sig := js.Prop(manifest, "signature")
	value := js.Prop(sig, "value")
	if !value.Truthy() {
		return SigUnsigned, nil, nil
	}
	notes := &res.sig
	cd, err := js.ToString(js.Prop(manifest, "content_digest"))
	if err != nil {
		return "", nil, err
	}
	cs, err := js.ToString(js.Prop(js.Prop(manifest, "replay"), "cassette_digest"))
	if err != nil {
		return "", nil, err
	}
	payload := js.AppendUTF8(nil, cd+":"+cs)
	notes.valueNotString = value.Kind != js.String
	alg := js.Prop(sig, "alg")
	if isString(alg, algEd25519) {
		return ed25519State(sig, value, payload, opt, notes), &algEd25519, nil
	}
	notes.algUnknown = !isString(alg, algHMAC)
	// String(sig.value) here is outside runback's try: it throws.
	v, err := js.ToString(value)
	if err != nil {
		return "", nil, err
	}
	if len(opt.HMACKeys) == 0 {
		return SigNoKey, &algHMAC, nil
	}
	got := js.AppendUTF8(nil, v)
	match := 0
	for _, k := range opt.HMACKeys {
		m := hmac.New(sha256.New, k)
		m.Write(payload)
		want := hex.AppendEncode(nil, m.Sum(nil))
		match |= subtle.ConstantTimeCompare(want, got)
	}
	noteHex(v, notes)
	if match == 1 {
		return SigValid, &algHMAC, nil
	}
	return SigInvalid, &algHMAC, nil
}

func ed25519State(sig, value *js.Value, payload []byte, opt Options, notes *sigNotes) string {
	embedded := js.Prop(sig, "pubkey")
	if !embedded.Truthy() {
		return SigNoKey
	}
	// From here runback runs inside try/catch: anything that throws is
	// "invalid".
	pub, ok := parseKey(embedded, notes)
	if !ok {
		return SigInvalid
	}
	v, err := js.ToString(value)
	if err != nil {
		return SigInvalid
	}
	noteHex(v, notes)
	if !ed25519.Verify(pub, payload, nodeHex(v)) {
		return SigInvalid
	}
	notes.embedded = pub
	if containsKey(opt.Revoked, pub) {
		return SigRevoked
	}
	pinned := opt.Pinned
	if pinned == nil {
		pinned = []ed25519.PublicKey{ProductionKey}
	}
	if containsKey(pinned, pub) {
		return SigValid
	}
	return SigValidUnpinned
}

func containsKey(list []ed25519.PublicKey, k ed25519.PublicKey) bool {
	for _, p := range list {
		if len(p) == len(k) && subtle.ConstantTimeCompare(p, k) == 1 {
			return true
		}
	}
	return false
}

// parseKey reads the embedded key as Node's createPublicKey reads a PEM
// string: an SPKI public key, or the public half of a PKCS#8 private key.
// Key objects (JWK, DER with options) are not read: docs/runback.md §5.
func parseKey(v *js.Value, notes *sigNotes) (ed25519.PublicKey, bool) {
	if v.Kind != js.String {
		return nil, false
	}
	block, _ := pem.Decode([]byte(v.Str))
	if block == nil {
		return nil, false
	}
	switch block.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, false
		}
		pub, ok := k.(ed25519.PublicKey)
		notes.nonEd25519 = !ok
		return pub, ok
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, false
		}
		priv, ok := k.(ed25519.PrivateKey)
		if !ok {
			notes.nonEd25519 = true
			return nil, false
		}
		notes.privateKeyPEM = true
		return priv.Public().(ed25519.PublicKey), true
	}
	return nil, false
}

// nodeHex decodes as Buffer.from(s, "hex"): pairs of hex digits up to the
// first pair that is not one; an odd last digit is dropped.
func nodeHex(s string) []byte {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		a, ok1 := unhex(s[i])
		b, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			break
		}
		out = append(out, a<<4|b)
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func noteHex(s string, notes *sigNotes) {
	if len(s)%2 != 0 {
		notes.hexGarbage = true
	}
	for i := 0; i < len(s); i++ {
		if _, ok := unhex(s[i]); !ok {
			notes.hexGarbage = true
		} else if s[i] >= 'A' && s[i] <= 'F' {
			notes.hexUpper = true
		}
	}
}
