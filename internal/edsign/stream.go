package edsign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"hash"

	"filippo.io/edwards25519"
)

// Verifier is Ed25519 verification (RFC 8032 §5.1.7) with the message
// given as a stream: it needs only k = SHA-512(R ‖ A ‖ M) of the message,
// so M is hashed as it is written and never held. It accepts exactly what
// crypto/ed25519.Verify accepts for the same key, message and signature
// (TestVerifierMatchesCryptoEd25519): the key is decoded as a point as
// Verify decodes it, S must be canonical (below the group order, the top
// three bits of the last byte clear), and the recomputed R is compared with
// the signature's R as bytes, without the cofactor. Which keys to trust
// at all (small-order or non-canonical ones) is the caller's rule
// (internal/edkey), as it is with Verify.
//
// A record's signed bytes are as long as the record; a verifier that
// writes them here as it produces them holds none of them (issue 22).
type Verifier struct {
	h   hash.Hash
	pub [ed25519.PublicKeySize]byte
	sig [ed25519.SignatureSize]byte
}

// ErrLength is NewVerifier's error for a key or a signature of the wrong
// length (crypto/ed25519.Verify panics on the first and returns false on
// the second).
var ErrLength = errors.New("ed25519: public key or signature of the wrong length")

// NewVerifier starts verifying sig under pub; the message follows through
// Write.
func NewVerifier(pub, sig []byte) (*Verifier, error) {
	if len(pub) != ed25519.PublicKeySize || len(sig) != ed25519.SignatureSize {
		return nil, ErrLength
	}
	v := &Verifier{h: sha512.New()}
	copy(v.pub[:], pub)
	copy(v.sig[:], sig)
	v.h.Write(v.sig[:32])
	v.h.Write(v.pub[:])
	return v, nil
}

// Write hashes the next part of the message; it never fails.
func (v *Verifier) Write(p []byte) (int, error) { return v.h.Write(p) }

// Verify reports whether the signature holds over everything written.
// Variable time: the key, the signature and the message are public.
func (v *Verifier) Verify() bool {
	if v.sig[63]&224 != 0 {
		return false
	}
	A, err := new(edwards25519.Point).SetBytes(v.pub[:])
	if err != nil {
		return false
	}
	var digest [sha512.Size]byte
	k, err := new(edwards25519.Scalar).SetUniformBytes(v.h.Sum(digest[:0]))
	if err != nil {
		return false // 64 bytes: cannot fail
	}
	S, err := new(edwards25519.Scalar).SetCanonicalBytes(v.sig[32:])
	if err != nil {
		return false
	}
	// [S]B = R + [k]A, so R = [k](-A) + [S]B.
	minusA := new(edwards25519.Point).Negate(A)
	R := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(k, minusA, S)
	return bytes.Equal(v.sig[:32], R.Bytes())
}
