// Package edverify checks Ed25519 signatures (RFC 8032, cofactorless: the
// equation [S]B = R + [k]A compared as encodings, as crypto/ed25519
// does) with nothing but filippo.io/edwards25519 and SHA-512: no base
// point table built per process (crypto/ed25519 builds one on first use,
// 64 field inversions) and no crypto/ed25519 import, for record-step,
// which checks one signature per hook and must start fast.
//
// A public key must be a canonical encoding of a point of large order:
// a small-order key (the identity, or one of the seven others of order
// dividing 8) makes signatures that verify for many messages, so it is
// refused as a key (PublicKey) and never verifies (Verify).
package edverify

import (
	"bytes"
	"crypto/sha512"
	"errors"

	"filippo.io/edwards25519"
)

// Sizes of a public key and of a signature.
const (
	PublicKeySize = 32
	SignatureSize = 64
)

// Errors of PublicKey.
var (
	ErrKeySize       = errors.New("ed25519 public key: not 32 bytes")
	ErrKeyNotPoint   = errors.New("ed25519 public key: not the encoding of a curve point")
	ErrKeySmallOrder = errors.New("ed25519 public key: a point of small order (such a key would verify forged signatures)")
)

// PublicKey checks that pub can be a signer's key: 32 bytes, the
// canonical encoding of a point, not of small order.
func PublicKey(pub []byte) error {
	_, err := point(pub)
	return err
}

func point(pub []byte) (*edwards25519.Point, error) {
	if len(pub) != PublicKeySize {
		return nil, ErrKeySize
	}
	A, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil || !bytes.Equal(A.Bytes(), pub) {
		return nil, ErrKeyNotPoint
	}
	if new(edwards25519.Point).MultByCofactor(A).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return nil, ErrKeySmallOrder
	}
	return A, nil
}

// Verify reports whether sig is pub's Ed25519 signature of msg. A key
// that PublicKey refuses never verifies. S, k and A are public, so the
// variable-time multiplication is fine.
func Verify(pub, msg, sig []byte) bool {
	if len(sig) != SignatureSize {
		return false
	}
	A, err := point(pub)
	if err != nil {
		return false
	}
	S, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(pub)
	h.Write(msg)
	k, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return false
	}
	R := new(edwards25519.Point).VarTimeMultiScalarMult(
		[]*edwards25519.Scalar{S, new(edwards25519.Scalar).Negate(k)},
		[]*edwards25519.Point{edwards25519.NewGeneratorPoint(), A})
	return bytes.Equal(R.Bytes(), sig[:32])
}
