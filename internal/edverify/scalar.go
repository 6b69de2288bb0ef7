package edverify

import (
	"encoding/binary"
	"math/bits"
)

// scalar is an integer below 2^256 in four little-endian 64-bit limbs;
// the ones doubleMult takes are reduced modulo order.
type scalar [4]uint64

// order is L = 2^252 + 27742317777372353535851937790883648493, the
// order of the base point (RFC 8032 §5.1).
var order = scalar{0x5812631a5cf5d3ed, 0x14def9dea2f79cd6, 0, 0x1000000000000000}

func scalarFrom32(b []byte) scalar {
	return scalar{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]),
		binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])}
}

// less reports whether s < t.
func (s *scalar) less(t *scalar) bool {
	for i := 3; i >= 0; i-- {
		if s[i] != t[i] {
			return s[i] < t[i]
		}
	}
	return false
}

// sub sets s to s - t (t <= s).
func (s *scalar) sub(t *scalar) {
	var borrow uint64
	for i := range s {
		s[i], borrow = bits.Sub64(s[i], t[i], borrow)
	}
}

// nibble is bits 4i to 4i+3 of s.
func (s *scalar) nibble(i int) uint64 { return s[i/16] >> (4 * (i % 16)) & 0xf }

// reduceWide is the 64-byte little-endian integer b modulo L, by long
// division one bit at a time (variable time: b is a public hash). The
// remainder stays below L < 2^253, so doubling it never overflows.
func reduceWide(b *[64]byte) scalar {
	var r scalar
	for i := 511; i >= 0; i-- {
		r[3] = r[3]<<1 | r[2]>>63
		r[2] = r[2]<<1 | r[1]>>63
		r[1] = r[1]<<1 | r[0]>>63
		r[0] = r[0]<<1 | uint64(b[i/8]>>(i%8)&1)
		if !r.less(&order) {
			r.sub(&order)
		}
	}
	return r
}

// negate is (L - s) mod L, for s < L.
func (s scalar) negate() scalar {
	if s == (scalar{}) {
		return s
	}
	n := order
	n.sub(&s)
	return n
}
