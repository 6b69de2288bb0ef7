package fleet

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Prints is the rule for the names written into a step's actor, which
// the verifier and the review print: a rune that prints (a letter, mark,
// number, punctuation, symbol, or the space). A C0 or C1 control (U+009B
// is a terminal's CSI), a bidi override or a line separator would hide or
// move text. An OIDC subject holding another rune is refused
// (internal/fleet/oidcauth); an asserted user has it replaced (AssertedUser).
func Prints(r rune) bool { return unicode.IsPrint(r) }

// Printable reports whether s is UTF-8 of runes that print (Prints).
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !Prints(r) {
			return false
		}
	}
	return true
}

// MaxAsserted is the longest asserted user kept, in bytes.
const MaxAsserted = 256

// AssertedUser is what the server writes of the user a client claims
// (the payload's user, the X-Logbook-User header): the claim is only
// shown, never trusted, so a rune that does not print (Prints), or a byte
// that is not UTF-8, is written "?" rather than the event refused; it is
// cut to MaxAsserted bytes, at a rune's start.
func AssertedUser(u string) string {
	if len(u) > MaxAsserted {
		cut := MaxAsserted
		// A rune starts at most 3 bytes back; further back, the bytes
		// are not UTF-8 (each written "?" below), and backing up over
		// them cut a claim of 300 continuation bytes to nothing.
		for cut > MaxAsserted-utf8.UTFMax+1 && !utf8.RuneStart(u[cut]) {
			cut--
		}
		u = u[:cut]
	}
	if Printable(u) {
		return u
	}
	var b strings.Builder
	for len(u) > 0 {
		r, n := utf8.DecodeRuneInString(u)
		if r == utf8.RuneError && n == 1 || !Prints(r) {
			r = '?'
		}
		b.WriteRune(r)
		u = u[n:]
	}
	return b.String()
}
