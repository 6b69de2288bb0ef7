package orgpolicy

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Domain is the signing domain of a policy signature.
const Domain = "logbook/policy@0/v1"

// Signed is a policy whose signature verified, with what a gate step
// carries so that a verifier can check it without the policy file.
type Signed struct {
	*Policy
	Key       ed25519.PublicKey
	KeySPKI   string // hex of the 44-byte SubjectPublicKeyInfo
	Signature string // hex of the 64 signature bytes
}

// SignedBytes are the bytes a policy signature covers: the canonical form
// of {"digest": DIGEST, "domain": Domain, "v": 1}. They name the policy by
// its digest, so a gate step that carries digest, key and signature can be
// checked by a verifier that never saw the policy (docs/policy.md §4).
func SignedBytes(digest string) []byte {
	v := strictjson.Obj(
		strictjson.Member{Key: "v", Value: strictjson.Int(1)},
		strictjson.Member{Key: "domain", Value: strictjson.Str(Domain)},
		strictjson.Member{Key: "digest", Value: strictjson.Str(digest)},
	)
	b, _ := jcs.Append(nil, &v) // plain ASCII strings and an integer: never fails
	return b
}

// Sign parses policy (a policy object's JSON text) and returns the signed
// file (the caller compiles the rules first: package gate)
// {"policy": …, "signature": {alg, publicKey, value}}, the policy
// written canonically.
func Sign(policy []byte, priv ed25519.PrivateKey) ([]byte, *Policy, error) {
	if len(policy) > MaxFile {
		return nil, nil, fail(ErrTooLarge, fmt.Sprintf("%d bytes, at most %d", len(policy), MaxFile))
	}
	v, err := strictjson.Parse(policy, strictjson.Options{MaxDepth: 64})
	if err != nil {
		return nil, nil, fail(ErrMalformed, "not strict JSON: "+err.Error())
	}
	p, err := Parse(v)
	if err != nil {
		return nil, nil, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	sig := ed25519.Sign(priv, SignedBytes(p.Digest))
	file := strictjson.Obj(
		strictjson.Member{Key: "policy", Value: *v},
		strictjson.Member{Key: "signature", Value: strictjson.Obj(
			strictjson.Member{Key: "alg", Value: strictjson.Str("Ed25519")},
			strictjson.Member{Key: "publicKey", Value: strictjson.Str(hex.EncodeToString(edkey.SPKI(pub)))},
			strictjson.Member{Key: "value", Value: strictjson.Str(hex.EncodeToString(sig))},
		)},
	)
	out, err := jcs.Append(nil, &file)
	if err != nil {
		return nil, nil, fail(ErrMalformed, err.Error())
	}
	return append(out, '\n'), p, nil
}

// Open reads a signed policy file and checks its signature under one of
// trusted (none given: any sound key, for logbook-policy show). It does
// not compile the rules (Compile does).
func Open(file []byte, trusted []ed25519.PublicKey) (*Signed, error) {
	if len(file) > MaxFile {
		return nil, fail(ErrTooLarge, fmt.Sprintf("%d bytes, at most %d", len(file), MaxFile))
	}
	v, err := strictjson.Parse(file, strictjson.Options{MaxDepth: 64})
	if err != nil {
		return nil, fail(ErrMalformed, "not strict JSON: "+err.Error())
	}
	if v.Kind != strictjson.Object || len(v.Members) != 2 || v.Get("policy") == nil || v.Get("signature") == nil {
		return nil, fail(ErrMalformed, `a signed policy is {"policy": …, "signature": …} (logbook-policy sign makes one)`)
	}
	p, err := Parse(v.Get("policy"))
	if err != nil {
		return nil, err
	}
	sig := v.Get("signature")
	if sig.Kind != strictjson.Object || len(sig.Members) != 3 {
		return nil, fail(ErrMalformed, "signature must be {alg, publicKey, value}")
	}
	alg, _ := sig.GetString("alg")
	spki, _ := sig.GetString("publicKey")
	val, _ := sig.GetString("value")
	if alg != "Ed25519" {
		return nil, fail(ErrMalformed, `signature.alg must be "Ed25519"`)
	}
	s, err := VerifySignature(p.Digest, spki, val)
	if err != nil {
		return nil, err
	}
	if len(trusted) > 0 && !trustedKey(s.Key, trusted) {
		return nil, fail(ErrUntrusted, fmt.Sprintf("signed by key %s, which is not a trusted policy key", keyID(s.Key)))
	}
	s.Policy = p
	return s, nil
}

// VerifySignature checks a policy signature given as hex (spki: the 44-byte
// SubjectPublicKeyInfo; sig: 64 bytes) over SignedBytes(digest). Weak keys
// (small order, non-canonical) are refused as the record's are (spec §7
// step 7).
func VerifySignature(digest, spkiHex, sigHex string) (*Signed, error) {
	spki, err1 := lowerHex(spkiHex)
	sig, err2 := lowerHex(sigHex)
	if err1 != nil || err2 != nil || len(spki) != 44 || len(sig) != ed25519.SignatureSize || !bytes.HasPrefix(spki, spkiPrefix) {
		return nil, fail(ErrMalformed, "publicKey must be 88 and value 128 lowercase hex (an Ed25519 SPKI and signature)")
	}
	pub := ed25519.PublicKey(spki[len(spkiPrefix):])
	if why := edkey.Weak(pub); why != "" {
		return nil, fail(ErrSignature, why)
	}
	if !ed25519.Verify(pub, SignedBytes(digest), sig) {
		return nil, fail(ErrSignature, "the signature does not verify over the policy's digest")
	}
	return &Signed{Key: pub, KeySPKI: spkiHex, Signature: sigHex}, nil
}

var spkiPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

func lowerHex(s string) ([]byte, error) {
	if strings.ToLower(s) != s {
		return nil, fmt.Errorf("uppercase hex")
	}
	return hex.DecodeString(s)
}

func trustedKey(k ed25519.PublicKey, trusted []ed25519.PublicKey) bool {
	for _, t := range trusted {
		if bytes.Equal(k, t) {
			return true
		}
	}
	return false
}

// keyID is the short name of a key in messages: sha256 of its SPKI, as
// record.KeyID, cut to 16 hex.
func keyID(k ed25519.PublicKey) string { return edkey.KeyID(edkey.SPKI(k))[:16] }
