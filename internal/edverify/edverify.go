// Package edverify checks Ed25519 signatures (RFC 8032, cofactorless: the
// equation [S]B = R + [k]A compared as encodings, as crypto/ed25519
// does) with nothing but filippo.io/edwards25519's field arithmetic and
// SHA-512, for record-step, which checks one signature per hook with
// --server-key and must start fast on every other hook too: no
// crypto/ed25519 (a base point table built on first use, 64 field
// inversions) and no package start-up at all (point.go says why not
// filippo.io/edwards25519's Point). TestMatchesEdwards25519 holds the
// curve arithmetic here to that package's.
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
	c := constants()
	if c == nil {
		return ErrKeyNotPoint
	}
	_, err := keyPoint(pub, c)
	return err
}

func keyPoint(pub []byte, c *curve) (*point, error) {
	if len(pub) != PublicKeySize {
		return nil, ErrKeySize
	}
	A := new(point)
	if !A.decode(pub, c) {
		return nil, ErrKeyNotPoint
	}
	if enc := A.encode(); !bytes.Equal(enc[:], pub) {
		return nil, ErrKeyNotPoint
	}
	var A8 point
	A8.add(A, A, c)
	A8.add(&A8, &A8, c)
	A8.add(&A8, &A8, c)
	if A8.isIdentity() {
		return nil, ErrKeySmallOrder
	}
	return A, nil
}

// Verify reports whether sig is pub's Ed25519 signature of msg. A key
// that PublicKey refuses never verifies. S, k and A are public, so the
// variable-time arithmetic is fine.
func Verify(pub, msg, sig []byte) bool {
	if len(sig) != SignatureSize {
		return false
	}
	c := constants()
	if c == nil {
		return false
	}
	A, err := keyPoint(pub, c)
	if err != nil {
		return false
	}
	S := scalarFrom32(sig[32:])
	if !S.less(&order) { // S must be canonical (RFC 8032 §5.1.7)
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(pub)
	h.Write(msg)
	var digest [64]byte
	h.Sum(digest[:0])
	negK := reduceWide(&digest).negate()
	R := doubleMult(&S, &c.B, &negK, A, c).encode()
	return bytes.Equal(R[:], sig[:32])
}
