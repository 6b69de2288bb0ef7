package jcs

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber returns the RFC 8785 form of a JSON number literal: the
// ECMAScript Number::toString of the nearest IEEE 754 double (RFC 8785
// §3.2.2.3, ECMA-262 §7.1.12.1). -0 becomes 0. A literal whose value
// overflows the double range returns ErrNoCanonicalForm.
func FormatNumber(lit string) (string, error) {
	if isSmallInt(lit) {
		if lit == "-0" {
			return "0", nil
		}
		return lit, nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", ErrNoCanonicalForm
	}
	return FormatFloat(f), nil
}

// isSmallInt reports a plain integer literal of at most 15 digits: exactly
// representable, and already in Number::toString form.
func isSmallInt(lit string) bool {
	d := strings.TrimPrefix(lit, "-")
	if d == "" || len(d) > 15 {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// FormatFloat writes f as ECMAScript Number::toString does: the shortest
// decimal that round-trips, in plain notation for exponents from -6 to 20
// and in exponential notation (e+N / e-N) outside that range.
func FormatFloat(f float64) string {
	if f == 0 {
		return "0"
	}
	var b []byte
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	// Shortest round-trip digits in scientific form: d.ddddde±XX.
	sci := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expText, _ := strings.Cut(sci, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	k := len(digits)
	n := exp + 1 // position of the decimal point relative to the digits
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for i := 0; i < n-k; i++ {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for i := 0; i < -n; i++ {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(n-1), 10)
	}
	return string(b)
}
