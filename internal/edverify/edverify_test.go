package edverify

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
)

// Verify agrees with crypto/ed25519 on good signatures and on every
// single-bit change of the message, key or signature.
func TestMatchesCryptoEd25519(t *testing.T) {
	t.Parallel()
	for i := 0; i < 50; i++ {
		pub, priv, _ := ed25519.GenerateKey(rand.Reader)
		msg := make([]byte, i*5)
		rand.Read(msg)
		sig := ed25519.Sign(priv, msg)
		if !Verify(pub, msg, sig) {
			t.Fatalf("a good signature does not verify")
		}
		for _, b := range [][]byte{msg, pub, sig} {
			if len(b) == 0 {
				continue
			}
			j := i % len(b)
			b[j] ^= 1 << (i % 8)
			if got, want := Verify(pub, msg, sig), ed25519.Verify(pub, msg, sig); got != want || got {
				t.Fatalf("flipped a bit: Verify %v, crypto/ed25519 %v", got, want)
			}
			b[j] ^= 1 << (i % 8)
		}
	}
	if Verify(make([]byte, 31), nil, make([]byte, 64)) || Verify(make([]byte, 32), nil, make([]byte, 63)) {
		t.Fatal("a short key or signature verified")
	}
}

// The eight points of small order (their canonical encodings) are
// refused as keys, and a signature that verifies under one with
// crypto/ed25519's equation (R = the identity, S = 0: any message) does
// not here.
func TestSmallOrderKeysRefused(t *testing.T) {
	t.Parallel()
	small := []string{
		"0100000000000000000000000000000000000000000000000000000000000000", // identity
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // order 2
		"0000000000000000000000000000000000000000000000000000000000000000", // order 4
		"0000000000000000000000000000000000000000000000000000000000000080",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	}
	forged := make([]byte, 64)
	forged[0] = 1 // R = identity, S = 0
	for _, h := range small {
		pub, _ := hex.DecodeString(h)
		if err := PublicKey(pub); !errors.Is(err, ErrKeySmallOrder) {
			t.Errorf("%s: %v", h, err)
		}
		if Verify(pub, []byte("any message"), forged) {
			t.Errorf("%s: a forged signature verified", h)
		}
	}
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	if err := PublicKey(pub); err != nil {
		t.Fatal(err)
	}
	notPoint := mustHex("0200000000000000000000000000000000000000000000000000000000000000")
	if err := PublicKey(notPoint); !errors.Is(err, ErrKeyNotPoint) {
		t.Errorf("not a point: %v", err)
	}
	if err := PublicKey(pub[:31]); !errors.Is(err, ErrKeySize) {
		t.Errorf("31 bytes: %v", err)
	}
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkVerify: one signature check, as record-step --server-key does
// once per hook (per-call tables), beside crypto/ed25519's (whose
// per-process base point table is built once, outside the loop here).
func BenchmarkVerify(b *testing.B) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	msg := []byte("logbook-server hook answer v1\nnonce 00112233445566778899aabbccddeeff\n")
	sig := ed25519.Sign(priv, msg)
	b.Run("edverify", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if !Verify(pub, msg, sig) {
				b.Fatal("no")
			}
		}
	})
	b.Run("crypto-ed25519", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if !ed25519.Verify(pub, msg, sig) {
				b.Fatal("no")
			}
		}
	})
}
