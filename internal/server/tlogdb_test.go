package server_test

import (
	"crypto/ed25519"
)

type ed25519PublicKey = ed25519.PublicKey

func ed25519NewKey(b byte) ed25519.PrivateKey {
	seed := make([]byte, 32)
	seed[0] = b
	return ed25519.NewKeyFromSeed(seed)
}
