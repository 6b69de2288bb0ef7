package checkpoint

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// spkiPrefix is the DER SubjectPublicKeyInfo of an Ed25519 key up to the
// 32 key bytes (spec §4 signature.publicKey).
var spkiPrefix = []byte{0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00}

// KeyID is the SHA-256 (hex) of pub's SPKI: the same id a record gives its
// signer (spec §6 keyId), so one server key has one name everywhere.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(append(append([]byte{}, spkiPrefix...), pub...))
	return hex.EncodeToString(sum[:])
}

// VerifierKey returns pub as a note verifier key, "origin+hash+keydata":
// what `logbook-verify --checkpoint-key` takes besides an SPKI PEM file.
func VerifierKey(origin string, pub ed25519.PublicKey) (string, error) {
	if !ValidOrigin(origin) {
		return "", fmt.Errorf("origin %q is not a valid checkpoint origin", origin)
	}
	return note.NewEd25519VerifierKey(origin, pub)
}

// Signer signs checkpoints for one origin with one Ed25519 key.
type Signer struct {
	origin, keyID string
	ns            note.Signer
}

// NewSigner makes a signer named origin (the server's name) for priv.
func NewSigner(origin string, priv ed25519.PrivateKey) (*Signer, error) {
	pub := priv.Public().(ed25519.PublicKey)
	vkey, err := VerifierKey(origin, pub)
	if err != nil {
		return nil, err
	}
	// A note signer key is "PRIVATE+KEY+" + name + "+" + hash + "+" +
	// base64(algorithm byte 1, then the 32-byte seed); the hash is the
	// verifier key's.
	parts := strings.SplitN(vkey, "+", 3)
	skey := "PRIVATE+KEY+" + origin + "+" + parts[1] + "+" +
		base64.StdEncoding.EncodeToString(append([]byte{1}, priv.Seed()...))
	ns, err := note.NewSigner(skey)
	if err != nil {
		return nil, err
	}
	return &Signer{origin: origin, keyID: KeyID(pub), ns: ns}, nil
}

// Origin is the server's name, as checkpoints state it.
func (s *Signer) Origin() string { return s.origin }

// KeyID is the signing key's id, as checkpoints state it.
func (s *Signer) KeyID() string { return s.keyID }

// Sign fills c's Origin and KeyID, checks it, and returns the signed note.
func (s *Signer) Sign(c Checkpoint) ([]byte, error) {
	c.Origin, c.KeyID = s.origin, s.keyID
	if err := c.Check(); err != nil {
		return nil, err
	}
	return note.Sign(&note.Note{Text: string(c.Text())}, s.ns)
}

// SignText signs any text as a note under the signer's name, checked or
// not: tests and fixtures use it to make notes that Open must refuse.
func (s *Signer) SignText(text string) ([]byte, error) {
	return note.Sign(&note.Note{Text: text}, s.ns)
}
