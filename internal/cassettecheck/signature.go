package cassettecheck

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/pem"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
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

// The one DER form each Ed25519 key has (RFC 8410): an SPKI public key
// and a PKCS#8 private key, each a fixed prefix and 32 bytes.
var (
	spkiEd25519  = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}
	pkcs8Ed25519 = []byte{0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20}
)

// parseKey reads the embedded key as Node's createPublicKey reads a PEM
// string, for Ed25519: an SPKI public key, or the public half of a PKCS#8
// private key, each in its one DER form. Another well-formed DER
// structure under "PUBLIC KEY" is a key of another algorithm (or a
// damaged one): NON_ED25519_KEY. A key object ({key, format, ...}, JWK
// included) is read as Node reads one (parseKeyObject); docs/runback.md §5. The page (web/js/cassette.js) applies the
// same rules, so both name the same finding.
func parseKey(v *js.Value, notes *sigNotes) (ed25519.PublicKey, bool) {
	switch v.Kind {
	case js.Object:
		return parseKeyObject(v, notes)
	case js.String:
		return parsePEM(js.AppendUTF8(nil, v.Str), notes)
	}
	return nil, false
}

// parsePEM reads PEM text as Node does for an Ed25519 key.
func parsePEM(text []byte, notes *sigNotes) (ed25519.PublicKey, bool) {
	block, _ := pem.Decode(text)
	if block == nil {
		return nil, false
	}
	der := block.Bytes
	switch block.Type {
	case "PUBLIC KEY":
		if len(der) == len(spkiEd25519)+ed25519.PublicKeySize && bytes.HasPrefix(der, spkiEd25519) {
			return ed25519.PublicKey(der[len(spkiEd25519):]), true
		}
		notes.nonEd25519 = derSequence(der)
	case "PRIVATE KEY":
		if len(der) == len(pkcs8Ed25519)+ed25519.SeedSize && bytes.HasPrefix(der, pkcs8Ed25519) {
			notes.privateKeyPEM = true
			return ed25519.NewKeyFromSeed(der[len(pkcs8Ed25519):]).Public().(ed25519.PublicKey), true
		}
	}
	return nil, false
}

// derSequence reports DER that is one SEQUENCE whose minimal length
// covers exactly the rest.
func derSequence(der []byte) bool {
	if len(der) < 2 || der[0] != 0x30 {
		return false
	}
	n, i := int(der[1]), 2
	if n >= 0x80 {
		k := n - 0x80
		if k == 0 || k > 3 || len(der) < 2+k || der[2] == 0 {
			return false
		}
		n = 0
		for _, b := range der[2 : 2+k] {
			n = n<<8 | int(b)
		}
		if n < 0x80 {
			return false
		}
		i += k
	}
	return len(der)-i == n
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
