package edsign

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// streamVerify writes msg to a Verifier in random pieces (some empty).
func streamVerify(t testing.TB, rng *mrand.Rand, pub, msg, sig []byte) bool {
	t.Helper()
	v, err := NewVerifier(pub, sig)
	if err != nil {
		t.Fatalf("NewVerifier: %v", err)
	}
	for len(msg) > 0 {
		n := rng.IntN(len(msg) + 1)
		v.Write(msg[:n])
		msg = msg[n:]
	}
	return v.Verify()
}

// RFC 8032 §7.1, TEST 1, 2, 3 and SHA(abc): the public key, message and
// signature, each accepted, and refused with one bit of any of them changed.
func TestVerifierRFC8032(t *testing.T) {
	t.Parallel()
	vectors := []struct{ pub, msg, sig string }{
		{"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
			"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
		{"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
			"92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
		{"fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
			"6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
		{"ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
			"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
			"dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"},
	}
	rng := mrand.New(mrand.NewPCG(1, 2))
	for n, vec := range vectors {
		pub, _ := hex.DecodeString(vec.pub)
		msg, _ := hex.DecodeString(vec.msg)
		sig, _ := hex.DecodeString(vec.sig)
		if !streamVerify(t, rng, pub, msg, sig) {
			t.Fatalf("vector %d refused", n)
		}
		for _, b := range [][]byte{pub, msg, sig} {
			if len(b) == 0 {
				continue
			}
			i := rng.IntN(len(b) * 8)
			b[i/8] ^= 1 << (i % 8)
			if got, want := streamVerify(t, rng, pub, msg, sig), ed25519.Verify(pub, msg, sig); got || want {
				t.Fatalf("vector %d with bit %d changed: accepted (crypto/ed25519: %v)", n, i, want)
			}
			b[i/8] ^= 1 << (i % 8)
		}
	}
}

// TestVerifierWycheproof: the 151 Wycheproof Ed25519 vectors. The
// Verifier gives crypto/ed25519.Verify's answer on each, and with the key
// rule of spec §7 step 7 (edkey.Weak) Wycheproof's.
func TestVerifierWycheproof(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/ed25519_test.json", "Wycheproof Ed25519 vectors (151) against the streaming verifier"))
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		TestGroups []struct {
			PublicKey struct{ Pk string } `json:"publicKey"`
			Tests     []struct {
				TcID   int    `json:"tcId"`
				Msg    string `json:"msg"`
				Sig    string `json:"sig"`
				Result string `json:"result"`
			} `json:"tests"`
		} `json:"testGroups"`
	}
	if err := json.Unmarshal(raw, &suite); err != nil {
		t.Fatal(err)
	}
	rng := mrand.New(mrand.NewPCG(3, 4))
	n := 0
	for _, g := range suite.TestGroups {
		pk, _ := hex.DecodeString(g.PublicKey.Pk)
		for _, tc := range g.Tests {
			n++
			msg, _ := hex.DecodeString(tc.Msg)
			sig, _ := hex.DecodeString(tc.Sig)
			want := len(sig) == ed25519.SignatureSize && ed25519.Verify(pk, msg, sig)
			v, err := NewVerifier(pk, sig)
			if err != nil {
				if want {
					t.Errorf("tcId %d: %v, but crypto/ed25519 accepts", tc.TcID, err)
				}
				if tc.Result == "valid" {
					t.Errorf("tcId %d: %v for a valid vector", tc.TcID, err)
				}
				continue
			}
			v.Write(msg)
			got := v.Verify()
			if got != want {
				t.Errorf("tcId %d: Verifier %v, crypto/ed25519 %v", tc.TcID, got, want)
			}
			if again := streamVerify(t, rng, pk, msg, sig); again != got {
				t.Errorf("tcId %d: in pieces %v, whole %v", tc.TcID, again, got)
			}
			if ok := edkey.Weak(pk) == "" && got; ok != (tc.Result == "valid") {
				t.Errorf("tcId %d: accepted=%v, want %s", tc.TcID, ok, tc.Result)
			}
		}
	}
	if n != 151 {
		t.Fatalf("ran %d vectors, want 151", n)
	}
}

// TestVerifierSignInput: the 1024 known answers of sign.input verify in
// pieces, and fail with the message's last byte changed.
func TestVerifierSignInput(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(corpora.Require(t, "corpora/ed25519/sign.input", "RFC 8032 sign.input known answers (1024) against the streaming verifier"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 1024 {
		t.Fatalf("%d lines, want 1024", len(lines))
	}
	rng := mrand.New(mrand.NewPCG(5, 6))
	for i, line := range lines {
		f := strings.Split(line, ":")
		pub, _ := hex.DecodeString(f[1])
		msg, _ := hex.DecodeString(f[2])
		sm, _ := hex.DecodeString(f[3])
		sig := sm[:64]
		if !streamVerify(t, rng, pub, msg, sig) {
			t.Fatalf("line %d refused", i+1)
		}
		if len(msg) > 0 {
			msg[len(msg)-1] ^= 0x80
			if streamVerify(t, rng, pub, msg, sig) {
				t.Fatalf("line %d accepted for another message", i+1)
			}
		}
	}
}

// groupOrder is ℓ = 2^252 + 27742317777372353535851937790883648493.
var groupOrder, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// scalarBytes is n mod 2^256 as 32 little-endian bytes.
func scalarBytes(n *big.Int) []byte {
	be := new(big.Int).Mod(n, new(big.Int).Lsh(big.NewInt(1), 256)).FillBytes(make([]byte, 32))
	for i, j := 0, 31; i < j; i, j = i+1, j-1 {
		be[i], be[j] = be[j], be[i]
	}
	return be
}

func leInt(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	return new(big.Int).SetBytes(be)
}

// TestVerifierMatchesCryptoEd25519: random keys and messages, sound and
// damaged: the Verifier and crypto/ed25519.Verify agree on every one,
// including S + ℓ (the same point, a non-canonical S: refused by both),
// the eight small-order keys, non-canonical key encodings (y ≥ p) and
// random 32-byte strings as keys.
func TestVerifierMatchesCryptoEd25519(t *testing.T) {
	t.Parallel()
	rng := mrand.New(mrand.NewPCG(7, 8))
	smallOrder := []string{
		"0100000000000000000000000000000000000000000000000000000000000000",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"0000000000000000000000000000000000000000000000000000000000000000",
		"0000000000000000000000000000000000000000000000000000000000000080",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
		// Non-canonical: y = p (0) and y = p+1 (1), and y ≥ p with the sign bit.
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	}
	check := func(what string, pub, msg, sig []byte) {
		t.Helper()
		want := ed25519.Verify(pub, msg, sig)
		if got := streamVerify(t, rng, pub, msg, sig); got != want {
			t.Fatalf("%s: Verifier %v, crypto/ed25519 %v (pub %x sig %x msg %x)", what, got, want, pub, sig, msg)
		}
	}
	for i := 0; i < 300; i++ {
		seed := make([]byte, 32)
		rand.Read(seed)
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		msg := make([]byte, rng.IntN(3000))
		rand.Read(msg)
		sig := ed25519.Sign(priv, msg)
		if !streamVerify(t, rng, pub, msg, sig) {
			t.Fatalf("a sound signature refused (seed %x)", seed)
		}
		check("sound", pub, msg, sig)
		bad := append([]byte(nil), sig...)
		bad[rng.IntN(64)] ^= 1 << rng.IntN(8)
		check("signature bit", pub, msg, bad)
		if len(msg) > 0 {
			m := append([]byte(nil), msg...)
			m[rng.IntN(len(m))] ^= 1 << rng.IntN(8)
			check("message bit", pub, m, sig)
		}
		check("message longer", pub, append(append([]byte(nil), msg...), 0), sig)
		k := append([]byte(nil), pub...)
		k[rng.IntN(32)] ^= 1 << rng.IntN(8)
		check("key bit", k, msg, sig)
		// S + ℓ: the same scalar, not canonical.
		if s := new(big.Int).Add(leInt(sig[32:]), groupOrder); s.BitLen() <= 256 {
			plus := append(append([]byte(nil), sig[:32]...), scalarBytes(s)...)
			check("S+ℓ", pub, msg, plus)
		}
		so, _ := hex.DecodeString(smallOrder[i%len(smallOrder)])
		check("small-order key", so, msg, sig)
		// Under the identity key, R = [S]B verifies for any message: a
		// universal forgery both accept; edkey.Weak is what refuses it.
		if i%len(smallOrder) == 0 {
			forged := append(append([]byte{}, baseMult(scalarOne())...), scalarOne().Bytes()...)
			check("identity-key forgery", so, msg, forged)
		}
		random := make([]byte, 32)
		rand.Read(random)
		check("random key", random, msg, sig)
	}
	if _, err := NewVerifier(make([]byte, 31), make([]byte, 64)); err == nil {
		t.Fatal("took a 31-byte key")
	}
	if _, err := NewVerifier(make([]byte, 32), make([]byte, 63)); err == nil {
		t.Fatal("took a 63-byte signature")
	}
}

func scalarOne() *edwards25519.Scalar {
	one := make([]byte, 32)
	one[0] = 1
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(one)
	if err != nil {
		panic(err)
	}
	return s
}
