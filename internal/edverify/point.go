package edverify

import (
	"sync"

	"filippo.io/edwards25519/field"
)

// point is a point of edwards25519 in extended coordinates: x = X/Z,
// y = Y/Z, xy = T/Z (Hisil, Wong, Carter, Dawson 2008). Only
// filippo.io/edwards25519's field arithmetic is used, not its Point: that
// package decodes its identity and base point at package start-up, which
// every record-step process paid though only --server-key verifies
// (docs/performance.md, "record-step start-up"). The constants here are
// made on the first verification instead.
type point struct{ X, Y, Z, T field.Element }

// curve holds the constants: d of -x² + y² = 1 + dx²y², 2d, the base point.
type curve struct {
	d, d2 field.Element
	B     point
}

// constants is nil only if the constants below are wrong (TestConstants).
// A sync.Once and a function, not sync.OnceValue: a package-level
// OnceValue is itself made at start-up (two allocations, in every
// record-step process; TestRecordStepInitStaysLean).
func constants() *curve {
	curveOnce.Do(func() {
		c := new(curve)
		if _, err := c.d.SetBytes(dBytes[:]); err != nil {
			return
		}
		c.d2.Add(&c.d, &c.d)
		if !c.B.decode(baseBytes[:], c) {
			return
		}
		curveConst = c
	})
	return curveConst
}

var (
	curveOnce  sync.Once
	curveConst *curve
)

var (
	// dBytes is -121665/121666 mod p (RFC 8032 §5.1).
	dBytes = [32]byte{
		0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
		0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52}
	// baseBytes encodes the base point B (y = 4/5, x positive).
	baseBytes = [32]byte{
		0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
		0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66}
)

// identity sets p to the neutral point (0, 1).
func (p *point) identity() *point {
	p.X.Zero()
	p.Y.One()
	p.Z.One()
	p.T.Zero()
	return p
}

// decode sets p to the point b encodes (RFC 8032 §5.1.3), as
// filippo.io/edwards25519's Point.SetBytes does: y's top bit is x's sign
// and a y at or above p is reduced, so a non-canonical encoding decodes;
// the caller that must refuse one compares encode's result with b.
func (p *point) decode(b []byte, c *curve) bool {
	if len(b) != 32 {
		return false
	}
	var y, y2, u, v, one field.Element
	if _, err := y.SetBytes(b); err != nil {
		return false
	}
	one.One()
	y2.Square(&y)
	u.Subtract(&y2, &one) // x² = (y² - 1) / (dy² + 1)
	v.Multiply(&y2, &c.d)
	v.Add(&v, &one)
	var x field.Element
	if _, wasSquare := x.SqrtRatio(&u, &v); wasSquare == 0 {
		return false
	}
	var xNeg field.Element
	xNeg.Negate(&x)
	x.Select(&xNeg, &x, int(b[31]>>7))
	p.X.Set(&x)
	p.Y.Set(&y)
	p.Z.One()
	p.T.Multiply(&x, &y)
	return true
}

// encode is p's canonical 32-byte encoding.
func (p *point) encode() [32]byte {
	var zInv, x, y field.Element
	zInv.Invert(&p.Z)
	x.Multiply(&p.X, &zInv)
	y.Multiply(&p.Y, &zInv)
	var out [32]byte
	copy(out[:], y.Bytes())
	out[31] |= byte(x.IsNegative() << 7)
	return out
}

// add sets p to a + b ("add-2008-hwcd-3": complete on this curve, so it
// also doubles, and a, b and p may be the same point).
func (p *point) add(a, b *point, c *curve) *point {
	var t0, t1, A, B, C, D, E, F, G, H field.Element
	A.Multiply(t0.Subtract(&a.Y, &a.X), t1.Subtract(&b.Y, &b.X))
	B.Multiply(t0.Add(&a.Y, &a.X), t1.Add(&b.Y, &b.X))
	C.Multiply(t0.Multiply(&a.T, &c.d2), &b.T)
	D.Multiply(t0.Add(&a.Z, &a.Z), &b.Z)
	E.Subtract(&B, &A)
	F.Subtract(&D, &C)
	G.Add(&D, &C)
	H.Add(&B, &A)
	p.X.Multiply(&E, &F)
	p.Y.Multiply(&G, &H)
	p.T.Multiply(&E, &H)
	p.Z.Multiply(&F, &G)
	return p
}

// isIdentity reports whether p is the neutral point: X = 0, Y = Z.
func (p *point) isIdentity() bool {
	var zero field.Element
	return p.X.Equal(&zero) == 1 && p.Y.Equal(&p.Z) == 1
}

// double sets p to 2a ("dbl-2008-hwcd", a = -1: 4 multiplications and 4
// squarings, where add takes 9 multiplications).
func (p *point) double(a *point) *point {
	var A, B, C, D, E, F, G, H field.Element
	A.Square(&a.X)
	B.Square(&a.Y)
	C.Square(&a.Z)
	C.Add(&C, &C)
	D.Negate(&A)
	E.Add(&a.X, &a.Y)
	E.Square(&E)
	E.Subtract(&E, &A)
	E.Subtract(&E, &B)
	G.Add(&D, &B)
	F.Subtract(&G, &C)
	H.Subtract(&D, &B)
	p.X.Multiply(&E, &F)
	p.Y.Multiply(&G, &H)
	p.T.Multiply(&E, &H)
	p.Z.Multiply(&F, &G)
	return p
}

// doubleMult is [s1]P1 + [s2]P2 (Straus, four bits at a time: 252
// doublings for both, at most one addition per scalar per four bits;
// variable time: the scalars and points are public).
func doubleMult(s1 *scalar, p1 *point, s2 *scalar, p2 *point, c *curve) *point {
	var t1, t2 [16]point // [j]P for j < 16
	for _, t := range []struct {
		tab *[16]point
		p   *point
	}{{&t1, p1}, {&t2, p2}} {
		t.tab[0].identity()
		t.tab[1] = *t.p
		for j := 2; j < 16; j++ {
			t.tab[j].add(&t.tab[j-1], t.p, c)
		}
	}
	q := new(point).identity()
	for i := 63; i >= 0; i-- {
		if i != 63 {
			q.double(q).double(q).double(q).double(q)
		}
		if n := s1.nibble(i); n != 0 {
			q.add(q, &t1[n], c)
		}
		if n := s2.nibble(i); n != 0 {
			q.add(q, &t2[n], c)
		}
	}
	return q
}
