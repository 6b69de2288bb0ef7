package edsign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// Keys and signatures must be crypto/ed25519's, byte for byte.
func TestMatchesCryptoEd25519(t *testing.T) {
	t.Parallel()
	for i := 0; i < 200; i++ {
		seed := make([]byte, 32)
		msg := make([]byte, i*7)
		rand.Read(seed)
		rand.Read(msg)
		want := ed25519.NewKeyFromSeed(seed)
		got, err := NewKeyFromSeed(seed)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("seed %x: key %x, want %x (%v)", seed, got, want, err)
		}
		sig, err := Sign(got, msg)
		if err != nil || !bytes.Equal(sig, ed25519.Sign(want, msg)) {
			t.Fatalf("seed %x msg %x: signature differs (%v)", seed, msg, err)
		}
	}
}

// RFC 8032 section 7.1, test 2.
func TestRFC8032Vector(t *testing.T) {
	t.Parallel()
	seed, _ := hex.DecodeString("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
	priv, err := NewKeyFromSeed(seed)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(priv[32:]); got != "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c" {
		t.Fatalf("public key %s", got)
	}
	sig, err := Sign(priv, []byte{0x72})
	if err != nil {
		t.Fatal(err)
	}
	const want = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
	if got := hex.EncodeToString(sig); got != want {
		t.Fatalf("signature %s", got)
	}
}

// A key whose public half is not its seed's is refused, not signed with.
func TestMismatchedKeyRefused(t *testing.T) {
	t.Parallel()
	seed := make([]byte, 32)
	priv, _ := NewKeyFromSeed(seed)
	priv[40] ^= 1
	if _, err := Sign(priv, []byte("m")); err == nil {
		t.Fatal("signed with a damaged key")
	}
	if _, err := NewKeyFromSeed(seed[:31]); err == nil {
		t.Fatal("took a 31-byte seed")
	}
	if _, err := Sign(priv[:63], nil); err == nil {
		t.Fatal("took a 63-byte key")
	}
}

// The check Sign makes agrees with crypto/ed25519's Verify on good and
// damaged signatures.
func TestVerifyAgreesWithCrypto(t *testing.T) {
	t.Parallel()
	for i := 0; i < 100; i++ {
		seed := make([]byte, 32)
		rand.Read(seed)
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		msg := []byte{byte(i), 1, 2}
		sig := ed25519.Sign(priv, msg)
		if !verify(pub, msg, sig) {
			t.Fatalf("good signature refused (seed %x)", seed)
		}
		bad := append([]byte(nil), sig...)
		bad[i%64] ^= 1 << (i % 8)
		if got, want := verify(pub, msg, bad), ed25519.Verify(pub, msg, bad); got != want || got {
			t.Fatalf("damaged signature: verify %v, crypto/ed25519 %v", got, want)
		}
		if verify(pub, append(msg, 0), sig) {
			t.Fatal("signature accepted for another message")
		}
	}
}
