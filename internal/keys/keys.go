// Package keys reads and writes Ed25519 keys as PEM: private keys as PKCS#8
// (RFC 5208/5958, "PRIVATE KEY", as `openssl genpkey -algorithm ed25519`
// writes them) and public keys as SubjectPublicKeyInfo (RFC 5280/8410,
// "PUBLIC KEY", as `openssl pkey -pubout` writes them). Only the sealer and
// the verifier link it: crypto/x509 is too heavy for record-step.
package keys

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/durable"
)

// ParsePrivateKeyPEM returns the Ed25519 key in a PKCS#8 PEM block. Errors
// name what is wrong: no PEM block, not PKCS#8, not Ed25519.
func ParsePrivateKeyPEM(text []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(text)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	if block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("PEM block is %q, want \"PRIVATE KEY\" (PKCS#8)", block.Type)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %v", err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the key is %s, and logbook signs with Ed25519 only: make one with logbook-seal --new-key FILE (or openssl genpkey -algorithm ed25519)", algorithm(k))
	}
	return priv, nil
}

// ParsePublicKeyPEM returns the Ed25519 key in an SPKI PEM block.
func ParsePublicKeyPEM(text []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(text)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	if block.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("PEM block is %q, want \"PUBLIC KEY\" (SPKI)", block.Type)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("not an SPKI public key: %v", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the public key is %s, and logbook keys are Ed25519 only (logbook-seal --new-key FILE writes FILE.pub)", algorithm(k))
	}
	return pub, nil
}

// algorithm names a key's algorithm in words, never as a Go type.
func algorithm(k any) string {
	switch k := k.(type) {
	case *ecdsa.PrivateKey:
		return "an ECDSA " + k.Curve.Params().Name + " key"
	case *ecdsa.PublicKey:
		return "an ECDSA " + k.Curve.Params().Name + " key"
	case *rsa.PrivateKey:
		return fmt.Sprintf("an RSA %d-bit key", k.N.BitLen())
	case *rsa.PublicKey:
		return fmt.Sprintf("an RSA %d-bit key", k.N.BitLen())
	case *ecdh.PrivateKey, *ecdh.PublicKey:
		return "an X25519 (ECDH) key"
	}
	return "not an Ed25519 key"
}

// Generate makes a new key pair and returns it as PKCS#8 and SPKI PEM text.
func Generate() (privPEM, pubPEM []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	return MarshalPair(priv, pub)
}

// MarshalPair encodes a key pair as PKCS#8 and SPKI PEM text.
func MarshalPair(priv ed25519.PrivateKey, pub ed25519.PublicKey) (privPEM, pubPEM []byte, err error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	spki, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: spki}), nil
}

// WriteNew makes a fresh key pair and writes it as file (PKCS#8 PEM, mode
// 0600) and file.pub (SPKI PEM), making the directory (0700) when needed.
// Each file is written whole or not at all (durable.WriteFileMode).
func WriteNew(file string) error {
	priv, pub, err := Generate()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(file), 0o700)
	}
	if err == nil {
		err = durable.WriteFileMode(file, priv, 0o600)
	}
	if err == nil {
		err = durable.WriteFileMode(file+".pub", pub, 0o644)
	}
	return err
}
