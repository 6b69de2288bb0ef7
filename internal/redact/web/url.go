package web

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/values"
)

// URL returns the bounds of the password of scheme://user:password@host
// (any scheme: https, postgres, mongodb+srv, redis, amqp...), or of an
// opaque user name used as a token (https://<token>@github.com), where
// s[c:] starts with "://"; or -1, -1.
//
// The authority is first read as RFC 3986 has it, up to the first / ? #
// (or a blank, quote, < > or \). People also paste passwords holding an
// unescaped ? # ' or >, so when the authority was cut at one of those
// right after "user:", the password is read on to the last @ before the
// host (see userinfoEnd).
func URL(s string, c int) (start, end int) {
	ss := c
	for ss > 0 && (ascii.IsAlnum(s[ss-1]) || s[ss-1] == '+' || s[ss-1] == '-' || s[ss-1] == '.') {
		ss--
	}
	if ss == c {
		return -1, -1
	}
	a := c + 3
	at, colon := -1, -1
	j := a
	for ; j < len(s); j++ {
		ch := s[j]
		if ch == '/' || ch == '?' || ch == '#' || ascii.IsSpace(ch) || ch == '"' || ch == '\'' || ch == '`' || ch == '<' || ch == '>' || ch == '\\' {
			break
		}
		switch {
		case ch == '@':
			at = j // the last @: an unescaped @ in the password stays in the password
		case ch == ':' && colon < 0 && at < 0:
			colon = j
		}
	}
	if colon >= 0 && j < len(s) {
		var open byte // what the URL is written inside: 'url' or <url>
		if ss > 0 {
			open = s[ss-1]
		}
		at = userinfoEnd(s, a, colon, at, j, open)
	}
	if at < 0 {
		return -1, -1
	}
	ui := s[a:at]
	if k := strings.IndexByte(ui, ':'); k >= 0 {
		if v := ui[k+1:]; v != "" && v != values.Mask && !values.IsShellRef(v) {
			return a + k + 1, at
		}
		return -1, -1
	}
	if len(ui) >= 16 && values.Opaque(ui) {
		return a, at
	}
	return -1, -1
}

// userinfoEnd decides where the userinfo of a URL ends when its strict
// reading, s[a:stop] with "user:" ending at colon and its last @ at at
// (-1 if none), was cut at s[stop]. When that byte is one a password may
// hold (? # ' >, but not the quote or > closing the URL itself), the
// password runs on to the last @ before a blank, quote, /, < or \, so
// https://user:pa#ss@host/ and postgres://app:it's>secret@db/x are read
// whole. It returns the @ that ends the userinfo, or -1.
//
// The cut is kept where the extra @ is more likely in a query or a
// fragment than in a password: after host:port (https://host:8080?q=a@b),
// or once the text after an @ holds a : or = (user:pw@host?mail=a@b.c).
func userinfoEnd(s string, a, colon, at, stop int, open byte) int {
	ch := s[stop]
	if (ch != '?' && ch != '#' && ch != '\'' && ch != '>') || (ch == '\'' && open == '\'') || (ch == '>' && open == '<') {
		return at
	}
	if strings.IndexByte(s[a:colon], '[') >= 0 { // http://[::1]:8080?q=a@b
		return at
	}
	if at < 0 && (colon+1 == stop || ascii.IsDigits(s[colon+1:stop])) { // host:port
		return at
	}
	if at >= 0 && strings.ContainsAny(s[at+1:stop], ":=") {
		return at
	}
	for k := stop; k < len(s); k++ {
		ch := s[k]
		if ascii.IsSpace(ch) || ch == '/' || ch == '"' || ch == '`' || ch == '<' || ch == '\\' || (ch == '\'' && open == '\'') || (ch == '>' && open == '<') {
			break
		}
		switch {
		case ch == '@':
			at = k
		case at >= 0 && (ch == ':' || ch == '='): // host:port, or a query
			return at
		}
	}
	return at
}
