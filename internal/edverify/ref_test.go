package edverify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"math/bits"
	"math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// refVerify is Verify as it was written on filippo.io/edwards25519's
// Point and Scalar (before point.go and scalar.go): the reference the
// tests below hold this package's own curve arithmetic to.
func refVerify(pub, msg, sig []byte) bool {
	if len(sig) != SignatureSize {
		return false
	}
	A, err := refPoint(pub)
	if err != nil {
		return false
	}
	S, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(pub)
	h.Write(msg)
	k, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(nil))
	if err != nil {
		return false
	}
	R := new(edwards25519.Point).VarTimeMultiScalarMult(
		[]*edwards25519.Scalar{S, new(edwards25519.Scalar).Negate(k)},
		[]*edwards25519.Point{edwards25519.NewGeneratorPoint(), A})
	return bytes.Equal(R.Bytes(), sig[:32])
}

func refPoint(pub []byte) (*edwards25519.Point, error) {
	if len(pub) != PublicKeySize {
		return nil, ErrKeySize
	}
	A, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil || !bytes.Equal(A.Bytes(), pub) {
		return nil, ErrKeyNotPoint
	}
	if new(edwards25519.Point).MultByCofactor(A).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return nil, ErrKeySmallOrder
	}
	return A, nil
}

// TestConstants: d and the base point decode, B encodes back to itself
// and has order L ([L]B is the identity, [L-1]B is -B).
func TestConstants(t *testing.T) {
	t.Parallel()
	c := constants()
	if c == nil {
		t.Fatal("the curve's constants do not decode")
	}
	if enc := c.B.encode(); enc != baseBytes {
		t.Fatalf("B encodes as %x", enc)
	}
	var zero scalar
	if !doubleMult(&order, &c.B, &zero, &c.B, c).isIdentity() {
		t.Fatal("[L]B is not the identity")
	}
	if got, want := doubleMult(new(scalar), &c.B, new(scalar), &c.B, c).encode(), edwards25519.NewIdentityPoint().Bytes(); !bytes.Equal(got[:], want) {
		t.Fatalf("[0]B encodes as %x", got)
	}
}

// TestMatchesEdwards25519: decoding, encoding, the reduction of a hash
// modulo L, negation and [s1]B + [s2]P agree with filippo.io/edwards25519
// on random inputs, including points with a small-order component (which
// a key may be: only keys of small order are refused).
func TestMatchesEdwards25519(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	c := constants()
	torsion := []string{
		"0100000000000000000000000000000000000000000000000000000000000000",
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"0000000000000000000000000000000000000000000000000000000000000080",
		"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
		"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	}
	decoded := 0
	for i := 0; i < 300; i++ {
		var b [32]byte
		fill(rng, b[:])
		if i%7 == 0 {
			b[31] |= 0x7f // y at or near p: non-canonical encodings
			b[0] = byte(0xed + i%19)
		}
		refP, refErr := new(edwards25519.Point).SetBytes(b[:])
		var p point
		if ok := p.decode(b[:], c); ok != (refErr == nil) {
			t.Fatalf("%x: decodes %v, edwards25519 says %v", b, ok, refErr)
		} else if ok {
			decoded++
			if got := p.encode(); !bytes.Equal(got[:], refP.Bytes()) {
				t.Fatalf("%x: encodes as %x, edwards25519 %x", b, got, refP.Bytes())
			}
		}
		if err, refErr := PublicKey(b[:]), func() error { _, e := refPoint(b[:]); return e }(); err != refErr {
			t.Fatalf("%x: PublicKey %v, edwards25519 %v", b, err, refErr)
		}

		var wide [64]byte
		fill(rng, wide[:])
		if i%11 == 0 {
			for j := range wide {
				wide[j] = 0xff
			}
		}
		k := reduceWide(&wide)
		refK, _ := new(edwards25519.Scalar).SetUniformBytes(wide[:])
		if got := scalarBytes(k); !bytes.Equal(got, refK.Bytes()) {
			t.Fatalf("%x mod L: %x, edwards25519 %x", wide, got, refK.Bytes())
		}
		negK := k.negate()
		refNeg := new(edwards25519.Scalar).Negate(refK)
		if got := scalarBytes(negK); !bytes.Equal(got, refNeg.Bytes()) {
			t.Fatalf("-%x: %x, edwards25519 %x", scalarBytes(k), got, refNeg.Bytes())
		}

		// P = [a]B + T, T of small order.
		fill(rng, wide[:])
		a := reduceWide(&wide)
		refA, _ := new(edwards25519.Scalar).SetUniformBytes(wide[:])
		refT, _ := new(edwards25519.Point).SetBytes(mustHex(torsion[i%len(torsion)]))
		refPt := new(edwards25519.Point).Add(new(edwards25519.Point).ScalarBaseMult(refA), refT)
		var P point
		if !P.decode(refPt.Bytes(), c) {
			t.Fatalf("%x does not decode", refPt.Bytes())
		}
		var zero scalar
		if got := doubleMult(&a, &c.B, &zero, &P, c).encode(); !bytes.Equal(got[:], new(edwards25519.Point).ScalarBaseMult(refA).Bytes()) {
			t.Fatalf("[a]B differs")
		}
		got := doubleMult(&k, &c.B, &negK, &P, c).encode()
		want := new(edwards25519.Point).VarTimeMultiScalarMult([]*edwards25519.Scalar{refK, refNeg}, []*edwards25519.Point{edwards25519.NewGeneratorPoint(), refPt})
		if !bytes.Equal(got[:], want.Bytes()) {
			t.Fatalf("[k]B + [-k]P: %x, edwards25519 %x", got, want.Bytes())
		}
	}
	if decoded < 100 {
		t.Fatalf("only %d of 300 random encodings decoded: too few to compare", decoded)
	}
}

// TestMatchesRefVerify: Verify and the reference agree on good
// signatures, on keys with a small-order component, and on every
// signature with its S bumped past L (non-canonical: refused by both).
func TestMatchesRefVerify(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	rfcPub := mustHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
	rfcSig := mustHex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
	if !Verify(rfcPub, nil, rfcSig) { // RFC 8032 §7.1, test 1
		t.Fatal("RFC 8032's first test vector does not verify")
	}
	for i := 0; i < 40; i++ {
		var seed [32]byte
		fill(rng, seed[:])
		priv := ed25519.NewKeyFromSeed(seed[:])
		pub := priv.Public().(ed25519.PublicKey)
		msg := make([]byte, i*3)
		fill(rng, msg)
		sig := ed25519.Sign(priv, msg)
		if !Verify(pub, msg, sig) || !refVerify(pub, msg, sig) {
			t.Fatal("a good signature does not verify")
		}
		// S + L: the same equation, not canonical.
		S := scalarFrom32(sig[32:])
		var carry uint64
		var sum scalar
		for j := range sum {
			sum[j], carry = bits.Add64(S[j], order[j], carry)
		}
		bad := append(append([]byte(nil), sig[:32]...), scalarBytes(sum)...)
		if Verify(pub, msg, bad) || refVerify(pub, msg, bad) {
			t.Fatal("S + L verified")
		}
		// A key with a small-order component, a random signature.
		refT, _ := new(edwards25519.Point).SetBytes(mustHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"))
		A, _ := new(edwards25519.Point).SetBytes(pub)
		mixed := new(edwards25519.Point).Add(A, refT).Bytes()
		if got, want := Verify(mixed, msg, sig), refVerify(mixed, msg, sig); got != want {
			t.Fatalf("mixed-order key: Verify %v, reference %v", got, want)
		}
	}
}

// FuzzVerify: Verify and the reference never disagree.
func FuzzVerify(f *testing.F) {
	pub, _ := hex.DecodeString("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
	sig, _ := hex.DecodeString("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
	f.Add(pub, []byte{}, sig) // RFC 8032 §7.1, test 1
	f.Add(make([]byte, 32), []byte("m"), make([]byte, 64))
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		if got, want := Verify(pub, msg, sig), refVerify(pub, msg, sig); got != want {
			t.Fatalf("Verify %v, reference %v", got, want)
		}
	})
}

func fill(rng *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
}

func scalarBytes(s scalar) []byte {
	b := make([]byte, 32)
	for i, l := range s {
		for j := 0; j < 8; j++ {
			b[i*8+j] = byte(l >> (8 * j))
		}
	}
	return b
}
