// Package jcs writes the RFC 8785 (JSON Canonicalization Scheme) form of a
// strictjson tree: members sorted by UTF-16 code units, no whitespace,
// minimal string escaping (spec §3), and numbers in the ECMAScript
// Number::toString form (RFC 8785 §3.2.2.3).
package jcs

import (
	"errors"
	"sort"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/strictjson"
)

// ErrNoCanonicalForm is returned for a value that RFC 8785 cannot write: a
// lone surrogate, a duplicate key, or a number outside IEEE 754 double range.
var ErrNoCanonicalForm = errors.New("jcs: value has no canonical form")

// Sink is what canonical bytes are written to: *bytes.Buffer, *bufio.Writer
// (wrapping a hash, to digest without holding the bytes) or *Buffer.
type Sink interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// Write writes the canonical form of v to w. It returns ErrNoCanonicalForm
// (possibly after writing part of the output) or the first write error.
func Write(w Sink, v *strictjson.Value) error {
	if v.Flags != 0 {
		return ErrNoCanonicalForm
	}
	return write(w, v, "")
}

// WriteWithout writes the canonical form of the object v without its member
// named skip (the step hash of spec §5 covers the step without "hash").
func WriteWithout(w Sink, v *strictjson.Value, skip string) error {
	if v.Flags != 0 {
		return ErrNoCanonicalForm
	}
	return write(w, v, skip)
}

// Append appends the canonical form of v to dst.
func Append(dst []byte, v *strictjson.Value) ([]byte, error) {
	b := Buffer{B: dst}
	err := Write(&b, v)
	return b.B, err
}

// Buffer is a minimal append-only Sink.
type Buffer struct{ B []byte }

// WriteString appends s.
func (b *Buffer) WriteString(s string) (int, error) { b.B = append(b.B, s...); return len(s), nil }

// WriteByte appends c.
func (b *Buffer) WriteByte(c byte) error { b.B = append(b.B, c); return nil }

func write(w Sink, v *strictjson.Value, skip string) error {
	switch v.Kind {
	case strictjson.Null:
		_, err := w.WriteString("null")
		return err
	case strictjson.True:
		_, err := w.WriteString("true")
		return err
	case strictjson.False:
		_, err := w.WriteString("false")
		return err
	case strictjson.Number:
		n, err := FormatNumber(v.Str)
		if err != nil {
			return err
		}
		_, err = w.WriteString(n)
		return err
	case strictjson.String:
		return WriteString(w, v.Str)
	case strictjson.Array:
		if err := w.WriteByte('['); err != nil {
			return err
		}
		for i := range v.Items {
			if i > 0 {
				if err := w.WriteByte(','); err != nil {
					return err
				}
			}
			if err := write(w, &v.Items[i], ""); err != nil {
				return err
			}
		}
		return w.WriteByte(']')
	default:
		return writeObject(w, v, skip)
	}
}

func writeObject(w Sink, v *strictjson.Value, skip string) error {
	order := sortedMembers(v.Members)
	if err := w.WriteByte('{'); err != nil {
		return err
	}
	first := true
	for _, i := range order {
		m := &v.Members[i]
		if skip != "" && m.Key == skip {
			continue
		}
		if !first {
			if err := w.WriteByte(','); err != nil {
				return err
			}
		}
		first = false
		if err := WriteString(w, m.Key); err != nil {
			return err
		}
		if err := w.WriteByte(':'); err != nil {
			return err
		}
		if err := write(w, &m.Value, ""); err != nil {
			return err
		}
	}
	return w.WriteByte('}')
}

// sortedMembers returns member indexes in RFC 8785 key order. Small objects
// that are already sorted (every object this project writes) skip the sort.
func sortedMembers(ms []strictjson.Member) []int {
	var small [16]int
	var order []int
	if len(ms) <= len(small) {
		order = small[:len(ms)]
	} else {
		order = make([]int, len(ms))
	}
	sorted := true
	for i := range ms {
		order[i] = i
		if i > 0 && LessUTF16(ms[i].Key, ms[i-1].Key) {
			sorted = false
		}
	}
	if !sorted {
		sort.SliceStable(order, func(a, b int) bool { return LessUTF16(ms[order[a]].Key, ms[order[b]].Key) })
	}
	return order
}

// LessUTF16 reports whether a sorts before b when both are compared as
// sequences of UTF-16 code units (RFC 8785 §3.2.3). UTF-8 byte order equals
// code point order, which differs from UTF-16 order only between a
// supplementary-plane character (a surrogate pair, 0xD800-0xDBFF first) and
// a character in U+E000-U+FFFF.
func LessUTF16(a, b string) bool {
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

// WriteString writes s as an RFC 8785 string: only '"', '\\' and control
// characters are escaped; everything else, U+2028 and U+2029 included, is
// written as its UTF-8 bytes. s must be valid UTF-8.
func WriteString(w Sink, s string) error {
	if err := w.WriteByte('"'); err != nil {
		return err
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		if start < i {
			if _, err := w.WriteString(s[start:i]); err != nil {
				return err
			}
		}
		var esc string
		switch c {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\b':
			esc = `\b`
		case '\t':
			esc = `\t`
		case '\n':
			esc = `\n`
		case '\f':
			esc = `\f`
		case '\r':
			esc = `\r`
		default:
			esc = string([]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]})
		}
		if _, err := w.WriteString(esc); err != nil {
			return err
		}
		start = i + 1
	}
	if start < len(s) {
		if _, err := w.WriteString(s[start:]); err != nil {
			return err
		}
	}
	return w.WriteByte('"')
}
