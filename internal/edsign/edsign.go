// Package edsign makes Ed25519 keys and signatures (RFC 8032) with the
// same bytes as crypto/ed25519, without the base point table that
// crypto/ed25519 builds on its first key or signature in a process: 256
// field inversions, about 1.5 ms of a loaded core, which was the largest
// single cost of logbook-wrap --out after the process start itself (a
// one-shot wrapper signs once). Here s·B is a constant-time
// variable-base multiplication by the base point (filippo.io/edwards25519,
// the library crypto/ed25519's own code comes from), whose small table is
// built per call. Ed25519 is deterministic, so the signatures are the
// ones crypto/ed25519 makes (TestMatchesCryptoEd25519).
package edsign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"

	"filippo.io/edwards25519"

	"github.com/logbook-project/logbook/internal/edverify"
)

// NewKeyFromSeed is ed25519.NewKeyFromSeed: seed followed by its public key.
func NewKeyFromSeed(seed []byte) (ed25519.PrivateKey, error) {
	if len(seed) != ed25519.SeedSize {
		return nil, errors.New("ed25519: seed is not 32 bytes")
	}
	s, _ := expand(seed)
	priv := make([]byte, 0, ed25519.PrivateKeySize)
	priv = append(append(priv, seed...), baseMult(s)...)
	return priv, nil
}

// Sign is ed25519.Sign, except that a key whose public half is not its
// seed's is an error (crypto/ed25519 panics).
func Sign(priv ed25519.PrivateKey, msg []byte) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("ed25519: private key is not 64 bytes")
	}
	s, prefix := expand(priv[:ed25519.SeedSize])
	pub := baseMult(s)
	if !bytes.Equal(pub, priv[ed25519.SeedSize:]) {
		return nil, errors.New("ed25519: the private key's public half is not its seed's")
	}
	h := sha512.New()
	h.Write(prefix)
	h.Write(msg)
	r, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	R := baseMult(r)
	h.Reset()
	h.Write(R)
	h.Write(pub)
	h.Write(msg)
	k, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	S := new(edwards25519.Scalar).MultiplyAdd(k, s, r)
	sig := append(R, S.Bytes()...)
	// Check the signature as a verifier would before anyone sees it: a
	// fault while signing can leak the key.
	if !verify(pub, msg, sig) {
		return nil, errors.New("ed25519: the signature does not verify under the key's public half")
	}
	return sig, nil
}

// verify is RFC 8032 verification for a signature this package made
// (internal/edverify: per-call tables, not ed25519.Verify's per-process
// base point table of 64 inversions).
func verify(pub, msg, sig []byte) bool { return edverify.Verify(pub, msg, sig) }

// expand is RFC 8032 section 5.1.5: the clamped secret scalar and the
// nonce prefix.
func expand(seed []byte) (*edwards25519.Scalar, []byte) {
	h := sha512.Sum512(seed)
	s, err := new(edwards25519.Scalar).SetBytesWithClamping(h[:32])
	if err != nil {
		panic("edsign: " + err.Error()) // 32 bytes: cannot fail
	}
	return s, h[32:]
}

// baseMult is x·B, encoded, in constant time.
func baseMult(x *edwards25519.Scalar) []byte {
	return new(edwards25519.Point).ScalarMult(x, edwards25519.NewGeneratorPoint()).Bytes()
}
