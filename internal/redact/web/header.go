// Package web finds the credentials of HTTP and URLs: the password in
// scheme://user:password@host, the values of Authorization, Proxy-
// Authorization, Cookie and Set-Cookie headers (keeping the auth scheme),
// and the credentials after a standalone Bearer or Basic.
package web

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/values"
)

// headerNames have a whole header value as secret, spaces included.
var headerNames = [...]string{"authorization", "proxy-authorization", "cookie", "set-cookie"}

// IsHeader reports whether name is one of the headers whose whole value
// is a secret (see Header).
func IsHeader(name string) bool { return ascii.InFold(name, headerNames[:]) }

// Header returns the bounds of an Authorization or Cookie header's value
// that starts at s[i], after the colon, or -1, -1: to the end of the line
// or of the enclosing quotes, without the auth scheme (Bearer, Basic,
// token...) so the record still says what was sent. A header written as
// one shell word with escaped blanks (-H Authorization:\ Bearer\ xyz) ends
// where that word ends.
func Header(s string, i int) (start, end int) {
	// An escaped blank right after the colon, or one inside the value
	// before any plain blank, makes the header a single shell word.
	shell := false
	for n := values.BlankAt(s, i); n > 0; n = values.BlankAt(s, i) {
		shell = shell || n == 2
		i += n
	}
	start, end = i, i
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '\\') {
		start, end, _ = values.At(s, i)
	} else {
		plain := false // a plain blank seen: prose, which runs to the end of the line
		for end < len(s) {
			ch := s[end]
			if values.BlankAt(s, end) == 2 {
				shell = shell || !plain
				end += 2
				continue
			}
			if shell {
				if ch == '[' && strings.HasPrefix(s[end:], values.Mask) {
					end += len(values.Mask) // an earlier replacement is one unit
					continue
				}
				if ch == '\\' && end+1 < len(s) && s[end+1] != '\n' && s[end+1] != '\r' {
					end += 2 // \; \& ...: an escaped byte stays in the word
					continue
				}
				if ascii.IsTerminator(ch) {
					break
				}
			} else if isHeaderEnd(ch) {
				break
			}
			plain = plain || ascii.IsBlank(ch)
			end++
		}
	}
	// Digest never sends the password, and its quoted parameters would
	// be cut at the first quote; it is left as is.
	if ascii.HasPrefixFold(s[start:end], "Digest ") {
		return -1, -1
	}
	start = SkipScheme(s, start, end)
	for end > start && ascii.IsBlank(s[end-1]) && (end-2 < start || s[end-2] != '\\') {
		end--
	}
	v := s[start:end]
	if v == "" || v == values.Mask || (values.IsShellRef(v) && strings.IndexByte(v, ' ') < 0) {
		return -1, -1
	}
	return start, end
}

func isHeaderEnd(c byte) bool {
	return c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' || c == '\\'
}

// authSchemes prefix Authorization values and are kept in clear.
var authSchemes = [...]string{"Bearer", "Basic", "Digest", "Token", "Bot", "Negotiate", "NTLM", "ApiKey", "AWS4-HMAC-SHA256"}

// SchemeLen returns the length of an auth scheme word at the start of v
// when a blank or a shell-escaped blank follows it, else 0.
func SchemeLen(v string) int {
	for _, sch := range authSchemes {
		if len(v) > len(sch) && ascii.HasPrefixFold(v, sch) && values.BlankAt(v, len(sch)) > 0 {
			return len(sch)
		}
	}
	return 0
}

// SkipScheme returns start moved past an auth scheme and its blanks at
// s[start:end], if there is one.
func SkipScheme(s string, start, end int) int {
	if n := SchemeLen(s[start:end]); n > 0 {
		start = min(values.SkipBlanks(s[:end], start+n), end)
	}
	return start
}
