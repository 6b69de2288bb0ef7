// Package tsa asks an RFC 3161 time-stamping authority for a token over a
// record's signature, and judges such a token (spec §4 signature.rfc3161,
// §7 step 8 TIMESTAMP_*). The ASN.1 and CMS are read by
// github.com/digitorus/timestamp and github.com/digitorus/pkcs7; what they
// leave unchecked is checked here: the nonce, the certificate chain at the
// token's own time, the timeStamping extended key usage, the content types,
// the ESS signing-certificate binding, and that a signer certificate is
// embedded at all (the library accepts a token without one unchecked).
package tsa

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/digitorus/timestamp"
)

// Transport sends a DER TimeStampReq and returns the DER TimeStampResp
// (RFC 3161 §3: over HTTP as application/timestamp-query, or a local
// command).
type Transport func(req []byte) ([]byte, error)

// Imprint is what a record's token covers: SHA-256 of the 64 signature
// bytes (spec §4).
func Imprint(signature []byte) []byte {
	sum := sha256.Sum256(signature)
	return sum[:]
}

// NewRequest returns a DER TimeStampReq (RFC 3161 §2.4.1) for the SHA-256
// of signature, with certReq set and a fresh 128-bit nonce read from
// random, and that nonce. The data is hashed here, in one call: the
// library's CreateRequest reads its io.Reader in a loop that drops the last
// chunk when a reader returns data together with io.EOF.
func NewRequest(signature []byte, random io.Reader) (der []byte, nonce *big.Int, err error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(random, b); err != nil {
		return nil, nil, fmt.Errorf("nonce: %w", err)
	}
	b[0] |= 0x40 // never zero, never short: the nonce always takes 16 bytes
	b[0] &= 0x7f // positive in two's complement
	nonce = new(big.Int).SetBytes(b)
	req := timestamp.Request{
		HashAlgorithm: crypto.SHA256,
		HashedMessage: Imprint(signature),
		Certificates:  true,
		Nonce:         nonce,
	}
	der, err = req.Marshal()
	return der, nonce, err
}

// CheckResponse reads a DER TimeStampResp (RFC 3161 §2.4.2) answering the
// request NewRequest made for signature with nonce, and returns its
// TimeStampToken (DER) for signature.rfc3161. It refuses a status other
// than granted, a token whose CMS signature does not verify or that
// carries no signer certificate, a nonce other than the request's, and an
// imprint other than SHA-256 of signature. Trust in the authority is not
// judged here (the verifier does that against its roots).
func CheckResponse(resp, signature []byte, nonce *big.Int) (token []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			token, err = nil, fmt.Errorf("time-stamp response cannot be read: %v", r)
		}
	}()
	ts, err := timestamp.ParseResponse(resp)
	if err != nil {
		return nil, fmt.Errorf("time-stamp response: %v", err)
	}
	if ts.Nonce == nil || ts.Nonce.Cmp(nonce) != 0 {
		return nil, errors.New("time-stamp response: the nonce is not the request's (a replayed or misdirected answer)")
	}
	if ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(ts.HashedMessage, Imprint(signature)) {
		return nil, errors.New("time-stamp response: the token covers other data than SHA-256 of the signature")
	}
	tok, err := parseToken(ts.RawToken)
	if err != nil {
		return nil, fmt.Errorf("time-stamp response: %v", err)
	}
	if err := tok.checkSelf(); err != nil {
		return nil, fmt.Errorf("time-stamp response: %v", err)
	}
	if !derSequence(ts.RawToken) {
		return nil, errors.New("time-stamp response: the token is not DER (a record stores DER only)")
	}
	return ts.RawToken, nil
}

// Stamp asks the authority behind t for a token over signature (the 64
// bytes of a record's Ed25519 signature) and returns it once CheckResponse
// accepts it. random supplies the nonce.
func Stamp(signature []byte, t Transport, random io.Reader) ([]byte, error) {
	req, nonce, err := NewRequest(signature, random)
	if err != nil {
		return nil, err
	}
	resp, err := t(req)
	if err != nil {
		return nil, err
	}
	return CheckResponse(resp, signature, nonce)
}
