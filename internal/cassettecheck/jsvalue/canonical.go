package jsvalue

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/jcs"
)

// FormatNumber is JSON.stringify of a number: Number::toString for finite
// values ("1e+21", "1e-7", "0.000001"; -0 is "0"), null for NaN and ±Infinity.
// The digit rule is the same one RFC 8785 uses, so it has one home, jcs.
func FormatNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "null"
	}
	return jcs.FormatFloat(f)
}

const hexDigits = "0123456789abcdef"

// AppendString appends JSON.stringify(s) for a WTF-8 string: quote,
// backslash and the named control escapes, other controls as \u00xx, lone
// surrogates as \udxxx (lowercase), everything else (U+2028, DEL, non-ASCII)
// as is.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0xED {
			i++
			continue
		}
		if c == 0xED {
			if i+2 < len(s) && s[i+1] >= 0xA0 {
				b = append(b, s[start:i]...)
				u := 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
				b = append(b, '\\', 'u', hexDigits[u>>12], hexDigits[u>>8&0xF], hexDigits[u>>4&0xF], hexDigits[u&0xF])
				i += 3
				start = i
				continue
			}
			i++
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendUTF8 appends s as Node's UTF-8 encoder writes a JavaScript string:
// a lone surrogate becomes U+FFFD. This is what sha256() of a string that
// was not passed through canonical() hashes (a model id, a digest).
func AppendUTF8(b []byte, s string) []byte {
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 {
			b = append(b, s[start:i]...)
			b = utf8.AppendRune(b, utf8.RuneError)
			i += 2
			start = i + 1
		}
	}
	return append(b, s[start:]...)
}

// HasLoneSurrogate reports a lone surrogate in a WTF-8 string.
func HasLoneSurrogate(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 {
			return true
		}
	}
	return false
}

// Less orders WTF-8 strings by their UTF-16 code units, as Array.prototype.sort
// orders keys.
func Less(a, b string) bool { return Compare(a, b) < 0 }

// Compare is Less as -1, 0, +1.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	// Back up to the start of the code point that differs.
	for i > 0 && (i < len(a) && a[i]&0xC0 == 0x80 || i < len(b) && b[i]&0xC0 == 0x80) {
		i--
	}
	ua := units(a[i:])
	ub := units(b[i:])
	for {
		x, okx := ua.next()
		y, oky := ub.next()
		switch {
		case !okx && !oky:
			return 0
		case !okx:
			return -1
		case !oky:
			return 1
		case x != y:
			if x < y {
				return -1
			}
			return 1
		}
	}
}

// unitIter yields UTF-16 code units of a WTF-8 string.
type unitIter struct {
	s   string
	low uint16 // pending low surrogate
}

func units(s string) *unitIter { return &unitIter{s: s} }

func (u *unitIter) next() (uint16, bool) {
	if u.low != 0 {
		l := u.low
		u.low = 0
		return l, true
	}
	if u.s == "" {
		return 0, false
	}
	c := u.s[0]
	if c < 0x80 {
		u.s = u.s[1:]
		return uint16(c), true
	}
	if c == 0xED && len(u.s) >= 3 && u.s[1] >= 0xA0 {
		r := 0xD000 | uint16(u.s[1]&0x3F)<<6 | uint16(u.s[2]&0x3F)
		u.s = u.s[3:]
		return r, true
	}
	r, size := utf8.DecodeRuneInString(u.s)
	u.s = u.s[size:]
	if r >= 0x10000 {
		r -= 0x10000
		u.low = uint16(0xDC00 + r&0x3FF)
		return uint16(0xD800 + r>>10), true
	}
	return uint16(r), true
}

// Encoder writes canonical JSON. Its zero value is ready; it keeps scratch
// space between calls, so reuse one for many values.
type Encoder struct {
	order []int
}

// Canonical returns canonical(v) as runback's verifier computes it.
func Canonical(v *Value) []byte {
	var e Encoder
	return e.Append(nil, v, "")
}

// Append appends canonical(v): JSON.stringify for scalars, arrays in order,
// object members sorted by UTF-16 code units with undefined values omitted.
// skipTop, when not "", names a member of a top-level object to leave out
// (runback hashes an event without its "_hash", in place, so an own
// "__proto__" member is kept).
func (e *Encoder) Append(b []byte, v *Value, skipTop string) []byte {
	switch v.Kind {
	case Undefined, Null:
		return append(b, "null"...)
	case Bool:
		if v.Bool {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Number:
		if v.Num == math.Trunc(v.Num) && math.Abs(v.Num) < 1e15 {
			if v.Num == 0 {
				return append(b, '0')
			}
			return appendInt(b, int64(v.Num))
		}
		return append(b, FormatNumber(v.Num)...)
	case String:
		return AppendString(b, v.Str)
	case Array:
		b = append(b, '[')
		for i := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.Append(b, &v.Items[i], "")
		}
		return append(b, ']')
	}
	// Object.
	base := len(e.order)
	for i := range v.Members {
		if v.Members[i].Value.Kind == Undefined || (skipTop != "" && v.Members[i].Key == skipTop) {
			continue
		}
		e.order = append(e.order, i)
	}
	idx := e.order[base:]
	if !sortedASCII(v.Members, idx) {
		slices.SortFunc(idx, func(x, y int) int { return Compare(v.Members[x].Key, v.Members[y].Key) })
	}
	b = append(b, '{')
	for n := base; n < len(e.order); n++ {
		m := &v.Members[e.order[n]]
		if n > base {
			b = append(b, ',')
		}
		b = AppendString(b, m.Key)
		b = append(b, ':')
		b = e.Append(b, &m.Value, "")
	}
	e.order = e.order[:base]
	return append(b, '}')
}

// sortedASCII reports keys already in order, a common case worth checking
// before sorting (byte order is UTF-16 order until a byte ≥ 0xEE).
func sortedASCII(ms []Member, idx []int) bool {
	for n := 1; n < len(idx); n++ {
		if Compare(ms[idx[n-1]].Key, ms[idx[n]].Key) >= 0 {
			return false
		}
	}
	return true
}

func appendInt(b []byte, n int64) []byte {
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	var tmp [20]byte
	i := len(tmp)
	for n > 0 {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, tmp[i:]...)
}

// AppendJSON writes v in member order, like JSON.stringify(v, null, indent)
// with indent spaces ("" indent: compact). Used to write cassettes; hashes
// never depend on it.
func AppendJSON(b []byte, v *Value, indent string) []byte {
	return appendJSON(b, v, indent, "\n")
}

func appendJSON(b []byte, v *Value, indent, nl string) []byte {
	switch v.Kind {
	case Array:
		if len(v.Items) == 0 {
			return append(b, "[]"...)
		}
		inner := nl + indent
		b = append(b, '[')
		for i := range v.Items {
			if i > 0 {
				b = append(b, ',')
			}
			if indent != "" {
				b = append(b, inner...)
			}
			b = appendJSON(b, &v.Items[i], indent, inner)
		}
		if indent != "" {
			b = append(b, nl...)
		}
		return append(b, ']')
	case Object:
		inner := nl + indent
		b = append(b, '{')
		n := 0
		for i := range v.Members {
			m := &v.Members[i]
			if m.Value.Kind == Undefined {
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			if indent != "" {
				b = append(b, inner...)
			}
			b = AppendString(b, m.Key)
			b = append(b, ':')
			if indent != "" {
				b = append(b, ' ')
			}
			b = appendJSON(b, &m.Value, indent, inner)
		}
		if n > 0 && indent != "" {
			b = append(b, nl...)
		}
		return append(b, '}')
	}
	var e Encoder
	return e.Append(b, v, "")
}
