package redact

import "strings"

// Words that start a shell argument or a word of prose: flags, auth
// schemes and bare "password value" pairs.

// word handles what can start a shell argument or a word of prose:
// --name value flags, "Bearer <token>", "Basic <base64>" and bare
// "password <value>" pairs.
func (sc *scanner) word(i int) {
	s := sc.s
	c := s[i]
	if c == '-' {
		sc.flag(i)
		return
	}
	if !isLetter(c) && c != '_' {
		return
	}
	we := i
	for we < len(s) && isNameChar(s[we]) {
		we++
	}
	if we >= len(s) || !isBlank(s[we]) {
		return
	}
	w := s[i:we]
	vs := we
	for vs < len(s) && isBlank(s[vs]) {
		vs++
	}
	if vs >= len(s) {
		return
	}
	switch {
	case equalFold(w, "bearer"):
		sc.bearer(vs)
		return
	case equalFold(w, "basic"):
		sc.basic(vs)
		return
	}
	// Bare "name value" is the weakest signal, so it needs a singular
	// secret word (not "secrets", "creds", "pass", "auth": kubectl get
	// secrets, pass show, gh auth login) and an opaque-looking value.
	if lower(w[len(w)-1]) == 's' || equalFold(w, "auth") {
		return
	}
	// The value test is cheaper and fails far more often: do it first.
	start, end, q := valueAt(s, vs)
	v := s[start:end]
	if (q == '\'' || !isShellRef(v)) && opaque(v) && sc.r.classify(w, ctxKey) == strongSecret {
		sc.add(start, end)
	}
}

// flag handles --name value and -name value (single-dash long flags such
// as keytool's -storepass); one-letter flags (-p value) are ambiguous and
// only curl's -u user:password is understood.
func (sc *scanner) flag(i int) {
	s := sc.s
	j := i
	for j < len(s) && s[j] == '-' {
		j++
	}
	if j-i > 2 {
		return
	}
	ne := j
	for ne < len(s) && isNameChar(s[ne]) {
		ne++
	}
	if ne >= len(s) || !isBlank(s[ne]) {
		return // --name=value is handled by assign
	}
	vs := ne
	for vs < len(s) && isBlank(s[vs]) {
		vs++
	}
	if vs >= len(s) || s[vs] == '-' || isOperator(s[vs]) {
		return
	}
	name := s[j:ne]
	if (j-i == 1 && name == "u") || (j-i == 2 && (name == "user" || name == "proxy-user")) {
		sc.userPass(vs)
		return
	}
	if len(name) < 2 {
		return
	}
	cls := sc.r.classify(name, ctxFlag)
	if cls == notSecret {
		return
	}
	start, end, q := valueAt(s, vs)
	if worthRedacting(s[start:end], cls, q) {
		sc.add(start, end)
	}
}

func isOperator(c byte) bool {
	switch c {
	case '|', '&', ';', '<', '>', '(', ')', '#', '\\':
		return true
	}
	return false
}

// userPass replaces the password of curl -u user:password. docker -u
// 1000:1000 and -u root:root are user:group pairs and stay. A user name
// that is not a plain name (letters, digits, . _ - @) is replaced with the
// password: it may well be a key id or half of the secret.
func (sc *scanner) userPass(vs int) {
	s := sc.s
	start, end, q := valueAt(s, vs)
	v := s[start:end]
	k := strings.IndexByte(v, ':')
	if k < 0 {
		return
	}
	user, pass := v[:k], v[k+1:]
	if pass == "" || pass == Mask || (q != '\'' && isShellRef(pass)) || user == pass || (isDigits(user) && isDigits(pass)) || repeated(pass) {
		return
	}
	if !plainUser(user) {
		sc.add(start, end)
		return
	}
	sc.add(start+k+1, end)
}

// plainUser reports a user name as people choose them.
func plainUser(u string) bool {
	if len(u) > 32 {
		return false
	}
	for i := 0; i < len(u); i++ {
		if c := u[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' && c != '@' {
			return false
		}
	}
	return true
}

// repeated reports a placeholder made of one byte repeated (yyy, 000).
func repeated(v string) bool {
	for i := 1; i < len(v); i++ {
		if v[i] != v[0] {
			return false
		}
	}
	return true
}

// bearer replaces the token after a standalone "Bearer" when it looks like
// one; "Bearer authentication" in prose stays.
func (sc *scanner) bearer(i int) {
	s := sc.s
	end := i
	for end < len(s) && isToken68(s[end]) {
		end++
	}
	v := s[i:end]
	if len(v) < 8 {
		return
	}
	var upper, lowerSeen, digit bool
	for k := 0; k < len(v); k++ {
		upper = upper || isUpper(v[k])
		lowerSeen = lowerSeen || isLower(v[k])
		digit = digit || isDigit(v[k])
	}
	if digit || (upper && lowerSeen && len(v) >= 16) {
		sc.add(i, end)
	}
}

// basic replaces the credentials after "Basic" when they decode to
// user:password, which tells them apart from "Basic usage".
func (sc *scanner) basic(i int) {
	s := sc.s
	end := i
	for end < len(s) && (isB64(s[end]) || s[end] == '=') {
		end++
	}
	if end-i >= 8 && isUserPass64(s[i:end]) {
		sc.add(i, end)
	}
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
		case isUpper(c):
			d = c - 'A'
		case isLower(c):
			d = c - 'a' + 26
		case isDigit(c):
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
