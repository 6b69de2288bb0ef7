package redact

// Byte classes. Everything the redactor decides on is ASCII; bytes of
// multi-byte UTF-8 runes are never in any class, so spans never split a rune.

// The range tests use unsigned wrap-around (c-'a' < 26) and c|0x20, which
// maps upper-case ASCII letters onto lower-case ones, to stay branch-light:
// these run on every byte of every step.
func isLower(c byte) bool  { return c-'a' < 26 }
func isUpper(c byte) bool  { return c-'A' < 26 }
func isDigit(c byte) bool  { return c-'0' < 10 }
func isLetter(c byte) bool { return (c|0x20)-'a' < 26 }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }
func isHex(c byte) bool    { return isDigit(c) || ('a' <= c && c <= 'f') }
func isBlank(c byte) bool  { return c == ' ' || c == '\t' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isNameChar is a byte of a variable, flag, header or key name.
func isNameChar(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// isB64 is a byte of standard base64 without padding (AWS secret keys).
func isB64(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

// isToken68 is a byte of an HTTP auth credential (RFC 7235 token68).
func isToken68(c byte) bool {
	return isAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
}

func lower(c byte) byte {
	if isUpper(c) {
		return c | 0x20
	}
	return c
}

// isTerminator ends an unquoted value: shell syntax, separators of query
// strings, connection strings and JSON, and escapes such as a literal \n.
func isTerminator(c byte) bool {
	switch c {
	case '"', '\'', '`', ';', '&', '|', '<', '>', '(', ')', ',', '}', ']', '\\':
		return true
	}
	return isSpace(c)
}
