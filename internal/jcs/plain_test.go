package jcs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// appendStringSlow is AppendString without the eight-byte scan.
func appendStringSlow(s string) string {
	var out strings.Builder
	out.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			out.WriteString(`\"`)
		case c == '\\':
			out.WriteString(`\\`)
		case c == '\b':
			out.WriteString(`\b`)
		case c == '\t':
			out.WriteString(`\t`)
		case c == '\n':
			out.WriteString(`\n`)
		case c == '\f':
			out.WriteString(`\f`)
		case c == '\r':
			out.WriteString(`\r`)
		case c < 0x20:
			out.WriteString(`\u00` + string(hexDigits[c>>4]) + string(hexDigits[c&0xF]))
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('"')
	return out.String()
}

func special(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// TestPlainPrefix: every byte value at every place of a 24-byte string,
// and random strings whose bytes are mostly near the special ones: the
// scan never passes a byte that needs an escape, passes whole words
// without one, and AppendString writes what the byte-at-a-time loop does.
func TestPlainPrefix(t *testing.T) {
	t.Parallel()
	check := func(s string) {
		t.Helper()
		n := plainPrefix(s)
		for i := 0; i < n; i++ {
			if special(s[i]) {
				t.Fatalf("%q: scan passed byte %d (0x%02x)", s, i, s[i])
			}
		}
		if n+8 <= len(s) {
			clean := true
			for i := n; i < n+8; i++ {
				clean = clean && !special(s[i])
			}
			if clean {
				t.Fatalf("%q: scan stopped at %d before a word with nothing to escape", s, n)
			}
		}
		var b Buffer
		b.AppendString(s)
		if got, want := string(b.B), appendStringSlow(s); got != want {
			t.Fatalf("%q: wrote %q, want %q", s, got, want)
		}
	}
	for c := 0; c < 256; c++ {
		for p := 0; p < 24; p++ {
			s := []byte(strings.Repeat("a", 24))
			s[p] = byte(c)
			check(string(s))
			s = []byte(strings.Repeat("\xff", 24)) // high bytes around it (borrows)
			s[p] = byte(c)
			check(string(s))
		}
	}
	near := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, '"', 0x23, '[', '\\', ']', 0x7f, 0x80, 0xa0, 0xdc, 0xe2, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 200000; n++ {
		s := make([]byte, rng.IntN(40))
		for i := range s {
			if rng.IntN(4) == 0 {
				s[i] = near[rng.IntN(len(near))]
			} else {
				s[i] = byte(0x20 + rng.IntN(0x60))
			}
		}
		check(string(s))
	}
}
