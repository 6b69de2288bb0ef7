package web

import "github.com/logbook-project/logbook/internal/redact/ascii"

// Bearer returns the end of the token at s[i], after a standalone
// "Bearer", when it looks like one, else -1: "Bearer authentication" in
// prose stays.
func Bearer(s string, i int) int {
	end := i
	for end < len(s) && ascii.IsToken68(s[end]) {
		end++
	}
	v := s[i:end]
	if len(v) < 8 {
		return -1
	}
	var upper, lowerSeen, digit bool
	for k := 0; k < len(v); k++ {
		upper = upper || ascii.IsUpper(v[k])
		lowerSeen = lowerSeen || ascii.IsLower(v[k])
		digit = digit || ascii.IsDigit(v[k])
	}
	if digit || (upper && lowerSeen && len(v) >= 16) {
		return end
	}
	return -1
}

// Basic returns the end of the credentials at s[i], after "Basic", when
// they decode to user:password, which tells them apart from "Basic usage";
// else -1.
func Basic(s string, i int) int {
	end := i
	for end < len(s) && (ascii.IsB64(s[end]) || s[end] == '=') {
		end++
	}
	if end-i >= 8 && isUserPass64(s[i:end]) {
		return end
	}
	return -1
}

// isUserPass64 reports whether v is standard base64 (padded or not) of
// printable ASCII holding a colon. It decodes by hand rather than with
// encoding/base64, whose package init record-step would pay on every call.
func isUserPass64(v string) bool {
	n := len(v)
	for n > 0 && v[n-1] == '=' {
		n--
	}
	if len(v)-n > 2 { // at most two padding bytes, and only at the end
		return false
	}
	v = v[:n]
	var acc uint
	bits := 0
	colon := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		var d byte
		switch {
		case ascii.IsUpper(c):
			d = c - 'A'
		case ascii.IsLower(c):
			d = c - 'a' + 26
		case ascii.IsDigit(c):
			d = c - '0' + 52
		case c == '+':
			d = 62
		case c == '/':
			d = 63
		default:
			return false
		}
		acc = acc<<6 | uint(d)
		if bits += 6; bits >= 8 {
			bits -= 8
			b := byte(acc >> bits)
			if b < 0x20 || b > 0x7e {
				return false
			}
			colon = colon || b == ':'
		}
	}
	return colon
}
