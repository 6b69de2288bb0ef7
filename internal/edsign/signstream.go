package edsign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"io"

	"filippo.io/edwards25519"
)

// ErrMessageChanged is returned by SignStream when the two writings of
// the message differ.
var ErrMessageChanged = errors.New("ed25519: the message was not the same bytes twice")

// SignStream is Sign for a message too large to hold in memory (a sealed
// record's signed bytes are about the size of the session). Ed25519 hashes
// the message twice (RFC 8032 section 5.1.6): the nonce r = SHA-512(prefix
// ‖ M), then, once R = r·B is known, k = SHA-512(R ‖ A ‖ M). Each hash is
// computed incrementally, so write is called twice and must write the
// same bytes M to w each time; the signature is the one Sign (and
// crypto/ed25519) makes over M.
//
// Both writings are also hashed with SHA-256 and compared: a nonce derived
// from one message must never sign another (two signatures sharing r
// give the key away), so a message that changed between the writings is
// ErrMessageChanged, and no signature is returned. As Sign does, it
// refuses a key whose public half is not its seed's and checks the
// signature before returning it.
func SignStream(priv ed25519.PrivateKey, write func(w io.Writer) error) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("ed25519: private key is not 64 bytes")
	}
	s, prefix := expand(priv[:ed25519.SeedSize])
	pub := baseMult(s)
	if !bytes.Equal(pub, priv[ed25519.SeedSize:]) {
		return nil, errors.New("ed25519: the private key's public half is not its seed's")
	}

	// First writing: the nonce.
	h, d1 := sha512.New(), sha256.New()
	h.Write(prefix)
	if err := write(io.MultiWriter(h, d1)); err != nil {
		return nil, err
	}
	r, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	R := baseMult(r)

	// Second writing: the challenge.
	h.Reset()
	d2 := sha256.New()
	h.Write(R)
	h.Write(pub)
	if err := write(io.MultiWriter(h, d2)); err != nil {
		return nil, err
	}
	if !bytes.Equal(d1.Sum(nil), d2.Sum(nil)) {
		return nil, ErrMessageChanged
	}
	k, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return nil, err
	}
	S := new(edwards25519.Scalar).MultiplyAdd(k, s, r)
	sig := append(R, S.Bytes()...)
	// The check Sign makes ([S]B - [k]A = R), with the k just computed:
	// the message is not read a third time.
	if !verifyK(pub, k, sig) {
		return nil, errors.New("ed25519: the signature does not verify under the key's public half")
	}
	return sig, nil
}

// verifyK is verify given k = SHA-512(R ‖ A ‖ M) already.
func verifyK(pub []byte, k *edwards25519.Scalar, sig []byte) bool {
	A, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return false
	}
	S, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	R := new(edwards25519.Point).VarTimeMultiScalarMult(
		[]*edwards25519.Scalar{S, new(edwards25519.Scalar).Negate(k)},
		[]*edwards25519.Point{edwards25519.NewGeneratorPoint(), A})
	return bytes.Equal(R.Bytes(), sig[:32])
}
