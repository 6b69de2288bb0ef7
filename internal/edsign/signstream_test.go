package edsign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	mrand "math/rand/v2"
	"testing"
)

// writeInChunks writes msg to w in pieces of random lengths (empty ones too), as
// a reader of a file hands them over.
func writeInChunks(rng *mrand.Rand, msg []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		for rest := msg; ; {
			n := rng.IntN(len(rest) + 1)
			if _, err := w.Write(rest[:n]); err != nil {
				return err
			}
			if rest = rest[n:]; len(rest) == 0 {
				return nil
			}
		}
	}
}

// SignStream's signatures must be crypto/ed25519's, byte for byte, for
// any key and message, however the message is cut into writes.
func TestSignStreamMatchesCryptoEd25519(t *testing.T) {
	t.Parallel()
	rng := mrand.New(mrand.NewPCG(22, 5))
	for i := 0; i < 200; i++ {
		seed := make([]byte, 32)
		msg := make([]byte, rng.IntN(4096)+i)
		rand.Read(seed)
		rand.Read(msg)
		priv := ed25519.NewKeyFromSeed(seed)
		sig, err := SignStream(priv, writeInChunks(rng, msg))
		if err != nil {
			t.Fatalf("seed %x: %v", seed, err)
		}
		if want := ed25519.Sign(priv, msg); !bytes.Equal(sig, want) {
			t.Fatalf("seed %x msg %x: signature %x, want %x", seed, msg, sig, want)
		}
	}
}

// RFC 8032 section 7.1, tests 1 to 3 and the SHA(abc) test.
func TestSignStreamRFC8032Vectors(t *testing.T) {
	t.Parallel()
	for _, v := range []struct{ seed, pub, msg, sig string }{
		{
			"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
			"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
			"",
			"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
		},
		{
			"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
			"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
			"72",
			"92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
		},
		{
			"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
			"fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
			"af82",
			"6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
		},
		{
			"833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
			"ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
			"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
			"dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
		},
	} {
		seed, _ := hex.DecodeString(v.seed)
		msg, _ := hex.DecodeString(v.msg)
		priv := ed25519.NewKeyFromSeed(seed)
		if got := hex.EncodeToString(priv[32:]); got != v.pub {
			t.Fatalf("seed %s: public key %s, want %s", v.seed, got, v.pub)
		}
		sig, err := SignStream(priv, func(w io.Writer) error { _, err := w.Write(msg); return err })
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(sig); got != v.sig {
			t.Fatalf("seed %s: signature %s, want %s", v.seed, got, v.sig)
		}
	}
}

// A message that is not the same bytes on the second writing is refused:
// the nonce of one message must never sign another.
func TestSignStreamMessageChanged(t *testing.T) {
	t.Parallel()
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	n := 0
	_, err := SignStream(priv, func(w io.Writer) error {
		n++
		_, err := w.Write([]byte{'a', byte(n)})
		return err
	})
	if !errors.Is(err, ErrMessageChanged) {
		t.Fatalf("err %v, want ErrMessageChanged", err)
	}
}

// The writer's error is returned, and nothing is signed.
func TestSignStreamWriteError(t *testing.T) {
	t.Parallel()
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	boom := errors.New("disk gone")
	sig, err := SignStream(priv, func(io.Writer) error { return boom })
	if !errors.Is(err, boom) || sig != nil {
		t.Fatalf("sig %x err %v", sig, err)
	}
}

// A damaged key (or one of the wrong length) is refused before the
// message is read.
func TestSignStreamBadKey(t *testing.T) {
	t.Parallel()
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	priv[40] ^= 1
	read := false
	write := func(io.Writer) error { read = true; return nil }
	if _, err := SignStream(priv, write); err == nil || read {
		t.Fatalf("damaged key: err %v, message read %v", err, read)
	}
	if _, err := SignStream(priv[:63], write); err == nil || read {
		t.Fatalf("short key: err %v, message read %v", err, read)
	}
}
