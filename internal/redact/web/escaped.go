package web

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
)

// Escaped calls f with each part of a URL in s that carries escapes,
// decoded, so that the rules read what the URL says rather than how it
// is written: a search for SG.xxx travels as q=SG%2Exxx or
// q=what+is+SG.xxx, which no rule reads as a token. The parts are the
// path's segments, the query's parameters and the fragment's (split at
// & and ;), each percent-decoded, + read as a space in the query and the
// fragment (HTML forms and search boxes write a space so). at maps each
// byte of dec, and its end, to s: at[i] is where dec[i] starts in s,
// at[len(dec)] where the part ends. A part without % or + costs nothing
// but the look.
func Escaped(s string, f func(dec string, at []int)) {
	for i := 0; ; {
		k := strings.Index(s[i:], "://")
		if k < 0 {
			return
		}
		c := i + k + 3
		// A ' ends the URL only when one opened it: encodeURIComponent
		// leaves ' as it is.
		ss := i + k
		for ss > 0 && (ascii.IsAlnum(s[ss-1]) || s[ss-1] == '+' || s[ss-1] == '-' || s[ss-1] == '.') {
			ss--
		}
		quoted := ss > 0 && s[ss-1] == '\''
		end := c
		for end < len(s) && !urlStop(s[end]) && (s[end] != '\'' || !quoted) {
			end++
		}
		parts(s, c, end, f)
		i = end
		if i >= len(s) {
			return
		}
	}
}

// urlStop: a byte that ends a URL written in text.
func urlStop(ch byte) bool {
	return ch <= ' ' || ch == 0x7f || ch == '"' || ch == '`' || ch == '<' || ch == '>' || ch == '\\'
}

// parts walks the URL s[a:end] after its "://": the authority is left to
// URL (its password), then each segment, parameter and fragment piece.
func parts(s string, a, end int, f func(string, []int)) {
	i := a
	for i < end && s[i] != '/' && s[i] != '?' && s[i] != '#' {
		i++
	}
	query := false // in the query or the fragment: + is a space
	start := i
	for j := i; j <= end; j++ {
		var ch byte
		if j < end {
			ch = s[j]
		}
		switch {
		case j == end:
		case ch == '/' && !query:
		case ch == '?' && !query, ch == '#':
		case (ch == '&' || ch == ';') && query:
		default:
			continue
		}
		if j > start {
			piece(s, start, j, query, f)
		}
		if ch == '?' || ch == '#' {
			query = true
		}
		start = j + 1
	}
}

// piece decodes s[a:b] and hands it to f when it holds an escape. In a
// query a + is a space, unless whoever wrote the URL escaped only what
// a path must (a token's own + left as is): both readings are given.
func piece(s string, a, b int, plus bool, f func(string, []int)) {
	p := s[a:b]
	pluses := plus && strings.Contains(p, "+")
	if pluses {
		decode(s, a, b, false, f)
	}
	if strings.Contains(p, "%") || pluses {
		decode(s, a, b, pluses, f)
	}
}

// decode hands f s[a:b] percent-decoded (and + as a space when plus)
// when that differs from s[a:b].
func decode(s string, a, b int, plus bool, f func(string, []int)) {
	p := s[a:b]
	dec := make([]byte, 0, len(p))
	at := make([]int, 0, len(p)+1)
	for i := 0; i < len(p); i++ {
		ch := p[i]
		switch {
		case ch == '%' && i+2 < len(p) && isHex(p[i+1]) && isHex(p[i+2]):
			dec = append(dec, unhex(p[i+1])<<4|unhex(p[i+2]))
			at = append(at, a+i)
			i += 2
			continue
		case ch == '+' && plus:
			ch = ' '
		}
		dec = append(dec, ch)
		at = append(at, a+i)
	}
	if len(dec) == len(p) && string(dec) == p {
		return
	}
	f(string(dec), append(at, b))
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
