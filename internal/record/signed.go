package record

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/record/signed"
)

// The writing half lives in internal/record/signed; these names keep
// package record the one place callers look.
type (
	Session = signed.Session
	Extras  = signed.Extras
	Parts   = signed.Parts
)

// SPKIPrefix is the DER header of an Ed25519 SubjectPublicKeyInfo.
const SPKIPrefix = signed.SPKIPrefix

// Assemble signs steps and returns the record's bytes (signed.Assemble).
func Assemble(sess Session, stepsJSON []byte, count int, tip string, priv ed25519.PrivateKey) ([]byte, error) {
	return signed.Assemble(sess, stepsJSON, count, tip, priv)
}

// AssembleWith is Assemble with Extras (signed.AssembleWith).
func AssembleWith(sess Session, stepsJSON []byte, count int, tip string, priv ed25519.PrivateKey, x Extras) ([]byte, error) {
	return signed.AssembleWith(sess, stepsJSON, count, tip, priv, x)
}

// SignedBytes is the canonical envelope the signature covers (spec §6).
func SignedBytes(p Parts) ([]byte, error) { return signed.SignedBytes(p) }

func envelope(p Parts) (prefix, suffix []byte, err error) { return signed.Envelope(p) }

// SPKI returns the 44-byte DER SubjectPublicKeyInfo of an Ed25519 key.
func SPKI(pub ed25519.PublicKey) []byte { return signed.SPKI(pub) }

// RecordID is sha256("logbook/id/v1" || signedBytes), lowercase hex (spec §6).
func RecordID(signedBytes []byte) string { return signed.RecordID(signedBytes) }

// KeyID is sha256 of the 44 SPKI bytes, lowercase hex (spec §6).
func KeyID(spki []byte) string { return signed.KeyID(spki) }
