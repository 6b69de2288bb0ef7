// Package ascii holds the byte classes and the ASCII case folding the
// redactor's scanners share. Everything the redactor decides on is ASCII;
// bytes of multi-byte UTF-8 runes are never in any class, so spans never
// split a rune. The functions are small enough to be inlined into the
// scanners' loops.
package ascii

// The range tests use unsigned wrap-around (c-'a' < 26) and c|0x20, which
// maps upper-case ASCII letters onto lower-case ones, to stay branch-light:
// these run on every byte of every step.
func IsLower(c byte) bool  { return c-'a' < 26 }
func IsUpper(c byte) bool  { return c-'A' < 26 }
func IsDigit(c byte) bool  { return c-'0' < 10 }
func IsLetter(c byte) bool { return (c|0x20)-'a' < 26 }
func IsAlnum(c byte) bool  { return IsLetter(c) || IsDigit(c) }
func IsHex(c byte) bool    { return IsDigit(c) || ('a' <= c && c <= 'f') }
func IsBlank(c byte) bool  { return c == ' ' || c == '\t' }
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// IsNameChar is a byte of a variable, flag, header or key name.
func IsNameChar(c byte) bool { return IsAlnum(c) || c == '_' || c == '-' || c == '.' }

// IsB64 is a byte of standard base64 without padding (AWS secret keys).
func IsB64(c byte) bool { return IsAlnum(c) || c == '+' || c == '/' }

// IsToken68 is a byte of an HTTP auth credential (RFC 7235 token68).
func IsToken68(c byte) bool {
	return IsAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
}

// Lower maps an upper-case ASCII letter to lower case.
func Lower(c byte) byte {
	if IsUpper(c) {
		return c | 0x20
	}
	return c
}

// IsTerminator ends an unquoted value: shell syntax, separators of query
// strings, connection strings and JSON, and escapes such as a literal \n.
func IsTerminator(c byte) bool {
	switch c {
	case '"', '\'', '`', ';', '&', '|', '<', '>', '(', ')', ',', '}', ']', '\\':
		return true
	}
	return IsSpace(c)
}

// InFold reports whether w equals one of list, ignoring ASCII case.
func InFold(w string, list []string) bool {
	for _, x := range list {
		if EqualFold(w, x) {
			return true
		}
	}
	return false
}

// EqualFold is strings.EqualFold for ASCII only: every word the rules
// compare is ASCII, and Unicode folding (the Kelvin sign folds to k) would
// only make matches harder to predict.
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if Lower(a[i]) != Lower(b[i]) {
			return false
		}
	}
	return true
}

// HasPrefixFold is strings.HasPrefix ignoring ASCII case.
func HasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && EqualFold(s[:len(prefix)], prefix)
}

// ContainsFold reports whether sub (lower-case ASCII) occurs in s, ignoring case.
func ContainsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if Lower(s[i]) == sub[0] && EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// IsDigits reports a non-empty string of ASCII digits.
func IsDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if !IsDigit(w[i]) {
			return false
		}
	}
	return w != ""
}
