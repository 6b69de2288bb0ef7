// Package edkey holds the rules for an Ed25519 public key that every
// signature logbook checks applies (spec §6, §7 step 7): its SPKI form, its
// keyId, and which keys are too weak to trust. It imports nothing heavy, so
// a hook (logbook-policy hook) can check a policy signature without the
// record verifier's start-up cost.
package edkey

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"

	"filippo.io/edwards25519"
)

// SPKIPrefix is the DER header of an Ed25519 SubjectPublicKeyInfo, in hex;
// the 32 key bytes follow it.
const SPKIPrefix = "302a300506032b6570032100"

// SPKI returns the 44-byte DER SubjectPublicKeyInfo of an Ed25519 key.
func SPKI(pub ed25519.PublicKey) []byte {
	prefix, _ := hex.DecodeString(SPKIPrefix)
	return append(prefix, pub...)
}

// KeyID is sha256 of the 44 SPKI bytes, lowercase hex (spec §6).
func KeyID(spki []byte) string {
	sum := sha256.Sum256(spki)
	return hex.EncodeToString(sum[:])
}

// Weak returns why an Ed25519 public key must not be trusted to verify
// anything, or "" for a sound key (spec §7 step 7): not a curve point, a
// non-canonical encoding, or a point of small order (a torsion point, under
// which universal forgeries verify).
func Weak(pub []byte) string {
	if len(pub) != ed25519.PublicKeySize {
		return "public key is not 32 bytes"
	}
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return "public key is not a point on the curve"
	}
	// SetBytes accepts y ≥ p and x=0 with the sign bit set; a re-encoding
	// that differs exposes both.
	if !bytes.Equal(p.Bytes(), pub) {
		return "public key is a non-canonical encoding"
	}
	if new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return "public key is a point of small order"
	}
	return ""
}
