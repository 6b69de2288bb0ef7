package jsvalue

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TypeError is where JavaScript would throw a TypeError on a value JSON can
// hold: a template literal over an object with its own "toString" member,
// .split on a number, iterating an object. runback's verifier then throws,
// and its CLI exits 1.
type TypeError struct{ Msg string }

func (e *TypeError) Error() string { return "TypeError: " + e.Msg }

var undef = Value{}

// Prop is v[key] for a property lookup in runback's code: an own member of
// an object, "length" of an array or string, and undefined otherwise
// (never nil). A JSON object's inherited properties (toString, ...) are
// functions, never looked up by name here.
func Prop(v *Value, key string) *Value {
	if v == nil {
		return &undef
	}
	switch v.Kind {
	case Object:
		if m := v.Get(key); m != nil {
			return m
		}
	case Array:
		if key == "length" {
			n := Num(float64(len(v.Items)))
			return &n
		}
	case String:
		if key == "length" {
			n := Num(float64(UTF16Len(v.Str)))
			return &n
		}
	}
	return &undef
}

// UTF16Len is a WTF-8 string's length in UTF-16 code units.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x80:
			i++
		case c >= 0xF0:
			i += 4
			n++ // the second unit of a pair
		case c >= 0xE0:
			i += 3
		default:
			i += 2
		}
		n++
	}
	return n
}

// ToString is JavaScript's ToString, as a template literal or String()
// applies it: arrays join with ",", null/undefined items empty; plain
// objects are "[object Object]"; an object with its own "toString" member
// (never callable in JSON) throws.
func ToString(v *Value) (string, error) {
	switch v.Kind {
	case Undefined:
		return "undefined", nil
	case Null:
		return "null", nil
	case Bool:
		return strconv.FormatBool(v.Bool), nil
	case Number:
		return NumberToString(v.Num), nil
	case String:
		return v.Str, nil
	case Array:
		var b strings.Builder
		for i := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			if v.Items[i].IsNullish() {
				continue
			}
			s, err := ToString(&v.Items[i])
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	if v.Has("toString") {
		return "", &TypeError{"Cannot convert object to primitive value"}
	}
	return "[object Object]", nil
}

// NumberToString is Number::toString: NaN, Infinity, -Infinity, else as
// JSON prints a number.
func NumberToString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return FormatNumber(f)
}

// ToNumber is JavaScript's ToNumber for a value JSON can hold.
func ToNumber(v *Value) (float64, error) {
	switch v.Kind {
	case Undefined:
		return math.NaN(), nil
	case Null:
		return 0, nil
	case Bool:
		if v.Bool {
			return 1, nil
		}
		return 0, nil
	case Number:
		return v.Num, nil
	case String:
		return StringToNumber(v.Str), nil
	}
	// Objects and arrays: valueOf gives the object itself, so toString.
	s, err := ToString(v)
	if err != nil {
		return 0, err
	}
	return StringToNumber(s), nil
}

// StringToNumber is ECMAScript's StringToNumber: white space trimmed, ""
// is 0, decimal literals with an optional sign, Infinity, 0x/0o/0b
// integers; anything else NaN.
func StringToNumber(s string) float64 {
	s = strings.TrimFunc(s, isJSSpace)
	if s == "" {
		return 0
	}
	if len(s) > 2 && s[0] == '0' {
		base := 0
		switch s[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 0 {
			f := 0.0
			for _, c := range s[2:] {
				d := digitVal(c)
				if d < 0 || d >= base {
					return math.NaN()
				}
				f = f*float64(base) + float64(d)
			}
			return f
		}
	}
	body := s
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	if body == "Infinity" {
		if s[0] == '-' {
			return math.Inf(-1)
		}
		return math.Inf(1)
	}
	if !isDecimalLiteral(body) {
		return math.NaN()
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func digitVal(c rune) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// isDecimalLiteral: digits [. digits] [e [sign] digits], or . digits ...
func isDecimalLiteral(s string) bool {
	i, n := 0, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		n++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		m := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			m++
		}
		if m == 0 {
			return false
		}
	}
	return i == len(s)
}

// isJSSpace is ECMAScript WhiteSpace and LineTerminator.
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// StrictEqual is ===: primitives by value (NaN never equal, 0 === -0),
// objects and arrays only to themselves, which two distinct parsed values
// never are.
func StrictEqual(a, b *Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Undefined, Null:
		return true
	case Bool:
		return a.Bool == b.Bool
	case Number:
		return a.Num == b.Num
	case String:
		return a.Str == b.Str
	}
	return a == b
}

// SameValueZero is Set.prototype.has's equality: === but NaN equals NaN.
func SameValueZero(a, b *Value) bool {
	if a.Kind == Number && b.Kind == Number && math.IsNaN(a.Num) && math.IsNaN(b.Num) {
		return true
	}
	return StrictEqual(a, b)
}

// JSONEqual is runback's jsonEqual: deep, key-order independent equality
// of own members.
func JSONEqual(a, b *Value) bool {
	if StrictEqual(a, b) {
		return true
	}
	ao := a.Kind == Array || a.Kind == Object
	bo := b.Kind == Array || b.Kind == Object
	if !ao || !bo {
		return false
	}
	if (a.Kind == Array) != (b.Kind == Array) {
		return false
	}
	if a.Kind == Array {
		if len(a.Items) != len(b.Items) {
			return false
		}
		for i := range a.Items {
			if !JSONEqual(&a.Items[i], &b.Items[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	for i := range a.Members {
		bm := b.Get(a.Members[i].Key)
		if bm == nil || !JSONEqual(&a.Members[i].Value, bm) {
			return false
		}
	}
	return true
}

// Split is String.prototype.split with a one-character ASCII separator.
func Split(s string, sep byte) []string { return strings.Split(s, string(sep)) }

// CodePoints iterates a string as for...of does: by code point, a lone
// surrogate on its own.
func CodePoints(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		n := 1
		if c := s[i]; c >= 0x80 {
			if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 {
				n = 3
			} else {
				_, n = utf8.DecodeRuneInString(s[i:])
			}
		}
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}
