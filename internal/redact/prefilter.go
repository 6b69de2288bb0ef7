//lint:file-ignore SA4000 rootBigrams spells each letter as x-'a', 'a'-'a' included, to read as the letters it holds

package redact

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
)

// rootAt reports whether one of the words a rule needs to see before it
// can fire without a '=', ':' or '@' starts at s[i], ignoring case: secret
// names (for flags and bare "password value" pairs), auth schemes, AWS
// context, JWTs ("eyJ"), webhook URLs, and the tokens whose base64 bodies
// can break the long-run test below (whsec_, ATATT3). A switch on the first
// byte keeps this to one comparison for most letters.
func rootAt(s string, i int) bool {
	rest := s[i+1:]
	switch ascii.Lower(s[i]) {
	case 'p':
		return ascii.HasPrefixFold(rest, "ass") || ascii.HasPrefixFold(rest, "wd")
	case 's':
		return ascii.HasPrefixFold(rest, "ecret")
	case 't':
		return ascii.HasPrefixFold(rest, "oken")
	case 'k':
		return ascii.HasPrefixFold(rest, "ey")
	case 'c':
		return ascii.HasPrefixFold(rest, "red") || ascii.HasPrefixFold(rest, "ookie")
	case 'a':
		return ascii.HasPrefixFold(rest, "uth") || ascii.HasPrefixFold(rest, "ws") || ascii.HasPrefixFold(rest, "tatt")
	case 'b':
		return ascii.HasPrefixFold(rest, "earer") || ascii.HasPrefixFold(rest, "asic")
	case 'e':
		return ascii.HasPrefixFold(rest, "yj")
	case 'h':
		return ascii.HasPrefixFold(rest, "ooks")
	case 'w':
		return ascii.HasPrefixFold(rest, "hsec")
	}
	return false
}

// longRun is the shortest run of [A-Za-z0-9_-] that every well-known token
// shape contains (an AWS key id is 20, a GitHub token 40).
const longRun = 16

// mayHoldSecret is the cheap test in front of the scanner: it reports false
// only when no rule could fire, i.e. s has no '=', ':', '@', "-----", no
// secret-ish word and no run of 16 token bytes. Typical commands such as
// "git status" or "go test ./..." stop here. It never allocates.
func mayHoldSecret(s string) bool {
	n := 0 // length of the current run of token bytes
	for i := 0; i < len(s); i++ {
		c := s[i]
		if l := (c | 0x20) - 'a'; l < 26 { // a letter
			// Most letters fail the bigram test; only the rest pay for rootAt.
			if b := rootBigrams[l]; b != 0 && i+1 < len(s) {
				if m := (s[i+1] | 0x20) - 'a'; m < 26 && b>>m&1 != 0 && rootAt(s, i) {
					return true
				}
			}
		} else if !ascii.IsDigit(c) && c != '_' {
			switch c {
			case '=', ':', '@':
				return true
			case '-':
				if strings.HasPrefix(s[i:], "-----") {
					return true
				}
			default:
				n = 0
				continue
			}
		}
		if n++; n >= longRun {
			return true
		}
	}
	return false
}

// rootBigrams[x-'a'] has bit y-'a' set when the letters x, y begin a word
// rootAt looks for (pa, pw, se, to, ke, cr, co, au, aw, at, be, ba, ey, ho,
// wh). It is a constant table, so it costs nothing at init.
var rootBigrams = [26]uint32{
	'p' - 'a': 1<<('a'-'a') | 1<<('w'-'a'),
	's' - 'a': 1 << ('e' - 'a'),
	't' - 'a': 1 << ('o' - 'a'),
	'k' - 'a': 1 << ('e' - 'a'),
	'c' - 'a': 1<<('r'-'a') | 1<<('o'-'a'),
	'a' - 'a': 1<<('u'-'a') | 1<<('w'-'a') | 1<<('t'-'a'),
	'b' - 'a': 1<<('e'-'a') | 1<<('a'-'a'),
	'e' - 'a': 1 << ('y' - 'a'),
	'h' - 'a': 1 << ('o' - 'a'),
	'w' - 'a': 1 << ('h' - 'a'),
}
