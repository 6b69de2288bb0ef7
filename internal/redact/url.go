package redact

import "strings"

// url replaces the password of scheme://user:password@host (any scheme:
// https, postgres, mongodb+srv, redis, amqp...), or an opaque user name
// used as a token (https://<token>@github.com).
func (sc *scanner) url(c int) {
	s := sc.s
	ss := c
	for ss > 0 && (isAlnum(s[ss-1]) || s[ss-1] == '+' || s[ss-1] == '-' || s[ss-1] == '.') {
		ss--
	}
	if ss == c {
		return
	}
	a := c + 3
	at := -1
	for j := a; j < len(s); j++ {
		ch := s[j]
		if ch == '/' || ch == '?' || ch == '#' || isSpace(ch) || ch == '"' || ch == '\'' || ch == '`' || ch == '<' || ch == '>' || ch == '\\' {
			break
		}
		if ch == '@' {
			at = j // the last @: an unescaped @ in the password stays in the password
		}
	}
	if at < 0 {
		return
	}
	ui := s[a:at]
	if k := strings.IndexByte(ui, ':'); k >= 0 {
		if v := ui[k+1:]; v != "" && v != Mask && !isShellRef(v) {
			sc.add(a+k+1, at)
		}
		return
	}
	if len(ui) >= 16 && opaque(ui) {
		sc.add(a, at)
	}
}
