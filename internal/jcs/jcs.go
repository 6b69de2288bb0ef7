// Package jcs writes the RFC 8785 (JSON Canonicalization Scheme) form of a
// strictjson tree: members sorted by UTF-16 code units, no whitespace,
// minimal string escaping (spec §3), and numbers in the ECMAScript
// Number::toString form (RFC 8785 §3.2.2.3).
package jcs

import (
	"errors"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// ErrNoCanonicalForm is returned for a value that RFC 8785 cannot write: a
// lone surrogate, a duplicate key, or a number outside IEEE 754 double range.
var ErrNoCanonicalForm = errors.New("jcs: value has no canonical form")

// Buffer receives canonical bytes. Its methods append to B; when Spill is
// set, B is handed to Spill and emptied whenever it passes 32 KiB, so the
// digest of a 10 MB body is taken without holding its canonical form. A
// concrete type rather than an interface: on a 100,000-step record the
// per-call dispatch was a measurable share of verification.
type Buffer struct {
	B     []byte
	Spill io.Writer
	// MaxLongLevels bounds how deep AppendText goes into containers
	// longer than TreeUnder (0: no bound; see AppendText).
	MaxLongLevels int
	err           error // the first error from Spill
}

const spillAt = 32 << 10

func (b *Buffer) spill() {
	if b.Spill != nil && len(b.B) >= spillAt {
		b.Flush()
	}
}

// Flush hands what B holds to Spill (when set) and returns the first error
// Spill gave.
func (b *Buffer) Flush() error {
	if b.Spill != nil && len(b.B) > 0 && b.err == nil {
		_, b.err = b.Spill.Write(b.B)
		b.B = b.B[:0]
	}
	return b.err
}

// Append writes the canonical form of v. It returns ErrNoCanonicalForm
// (possibly after writing part of the output) for a lone surrogate, a
// duplicate key or a number outside double range.
func (b *Buffer) Append(v *strictjson.Value) error {
	if v.Flags != 0 {
		return ErrNoCanonicalForm
	}
	if err := b.value(v); err != nil {
		return err
	}
	return b.err
}

// Append appends the canonical form of v to dst.
func Append(dst []byte, v *strictjson.Value) ([]byte, error) {
	b := Buffer{B: dst}
	err := b.Append(v)
	return b.B, err
}

// AppendCut appends the canonical form of the object v and reports the
// bytes [from, to) of b.B that hold its member named key together with one
// comma that separates it from a neighbour: b.B without those bytes is the
// canonical form of v without that member. Both are -1 when v has no such
// member. The step hash of spec §5 is taken this way, so a step is
// canonicalized once for both its hash and the signed bytes. Use it
// without Spill: the offsets are into B.
func (b *Buffer) AppendCut(v *strictjson.Value, key string) (from, to int, err error) {
	if v.Flags != 0 {
		return -1, -1, ErrNoCanonicalForm
	}
	if v.Kind != strictjson.Object {
		return -1, -1, errors.New("jcs: AppendCut needs an object")
	}
	b.B = append(b.B, '{')
	from, to = -1, -1
	order := sortedMembers(v.Members)
	for n := range v.Members {
		m := memberAt(v.Members, order, n)
		if n > 0 {
			b.B = append(b.B, ',')
		}
		if m.Key == key {
			from = len(b.B)
			if n > 0 {
				from-- // the comma before it
			}
		}
		b.AppendString(m.Key)
		b.B = append(b.B, ':')
		if err := b.value(&m.Value); err != nil {
			return -1, -1, err
		}
		if m.Key == key {
			to = len(b.B)
			if n == 0 && len(v.Members) > 1 {
				to++ // the comma after it, written next
			}
		}
	}
	b.B = append(b.B, '}')
	return from, to, nil
}

func (b *Buffer) value(v *strictjson.Value) error {
	switch v.Kind {
	case strictjson.Null:
		b.B = append(b.B, "null"...)
	case strictjson.True:
		b.B = append(b.B, "true"...)
	case strictjson.False:
		b.B = append(b.B, "false"...)
	case strictjson.Number:
		n, err := FormatNumber(v.Str)
		if err != nil {
			return err
		}
		b.B = append(b.B, n...)
	case strictjson.String:
		b.AppendString(v.Str)
	case strictjson.Array:
		b.B = append(b.B, '[')
		for i := range v.Items {
			if i > 0 {
				b.B = append(b.B, ',')
			}
			if err := b.value(&v.Items[i]); err != nil {
				return err
			}
		}
		b.B = append(b.B, ']')
	default:
		b.B = append(b.B, '{')
		order := sortedMembers(v.Members)
		for n := range v.Members {
			m := memberAt(v.Members, order, n)
			if n > 0 {
				b.B = append(b.B, ',')
			}
			b.AppendString(m.Key)
			b.B = append(b.B, ':')
			if err := b.value(&m.Value); err != nil {
				return err
			}
		}
		b.B = append(b.B, '}')
	}
	b.spill()
	return nil
}

// sortedMembers returns member indexes in RFC 8785 key order, or nil when
// the members are in that order already (every object this project
// writes), so the common case allocates nothing.
func sortedMembers(ms []strictjson.Member) []int {
	sorted := true
	for i := 1; i < len(ms); i++ {
		if !LessUTF16(ms[i-1].Key, ms[i].Key) {
			sorted = false
			break
		}
	}
	if sorted {
		return nil
	}
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return LessUTF16(ms[order[a]].Key, ms[order[b]].Key) })
	return order
}

// memberAt returns the n-th member in canonical order.
func memberAt(ms []strictjson.Member, order []int, n int) *strictjson.Member {
	if order == nil {
		return &ms[n]
	}
	return &ms[order[n]]
}

// LessUTF16 reports whether a sorts before b when both are compared as
// sequences of UTF-16 code units (RFC 8785 §3.2.3). UTF-8 byte order equals
// code point order, which differs from UTF-16 order only between a
// supplementary-plane character (a surrogate pair, 0xD800-0xDBFF first) and
// a character in U+E000-U+FFFF.
func LessUTF16(a, b string) bool {
	// Skip the common prefix; bytes below 0x80 compare the same in every
	// encoding, so only a difference at a multi-byte character needs care.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) < len(b)
	}
	if a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return a[i] < b[i]
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i-- // back to the start of the character that differs
	}
	a, b = a[i:], b[i:]
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

// utf16Key maps a code point to a value ordered like its first UTF-16 code
// unit, with ties between supplementary characters broken by code point.
func utf16Key(r rune) int64 {
	if r >= 0x10000 {
		hi := 0xD800 + (r-0x10000)>>10
		return int64(hi)<<21 | int64(r)
	}
	return int64(r) << 21
}

const hexDigits = "0123456789abcdef"

// plainPrefix is how many leading bytes of s need no escape, rounded down
// to 8: it tests eight bytes at a time for a control character, '"' or
// '\\' (each test below is exact for "some byte is", the classic
// has-zero-byte and has-less-than bit tricks), so the bulk of a record's
// text is copied without a look at each byte.
func plainPrefix(s string) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := x ^ (lo * '"')
		bs := x ^ (lo * '\\')
		if ((x-lo*0x20)&^x|(q-lo)&^q|(bs-lo)&^bs)&hi != 0 {
			break
		}
	}
	return i
}

// AppendString writes s as an RFC 8785 string: only '"', '\\' and control
// characters are escaped; everything else, U+2028 and U+2029 included, is
// written as its UTF-8 bytes. s must be valid UTF-8.
func (b *Buffer) AppendString(s string) {
	b.B = append(b.B, '"')
	start := 0
	for i := plainPrefix(s); i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b.appendPlain(s[start:i])
		switch c {
		case '"':
			b.B = append(b.B, '\\', '"')
		case '\\':
			b.B = append(b.B, '\\', '\\')
		case '\b':
			b.B = append(b.B, '\\', 'b')
		case '\t':
			b.B = append(b.B, '\\', 't')
		case '\n':
			b.B = append(b.B, '\\', 'n')
		case '\f':
			b.B = append(b.B, '\\', 'f')
		case '\r':
			b.B = append(b.B, '\\', 'r')
		default:
			b.B = append(b.B, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
		if b.Spill != nil && len(b.B) >= spillAt {
			b.Flush() // a string of a million escapes
		}
	}
	b.appendPlain(s[start:])
	b.B = append(b.B, '"')
}

// appendPlain appends s, which needs no escapes. With Spill set, a long s
// goes through B a piece at a time: a 31 MiB tool output was copied whole
// into B before it was hashed, one more copy of the body per event on
// logbook-server (issue 32).
func (b *Buffer) appendPlain(s string) {
	for b.Spill != nil && len(s) > spillAt && b.err == nil {
		b.B = append(b.B, s[:spillAt]...)
		s = s[spillAt:]
		b.Flush()
	}
	b.B = append(b.B, s...)
}
