package scan

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/names"
	"github.com/logbook-project/logbook/internal/redact/values"
	"github.com/logbook-project/logbook/internal/redact/web"
)

// Words that start a shell argument or a word of prose: flags, auth
// schemes and bare "password value" pairs.

// word handles what can start a shell argument or a word of prose:
// --name value flags, "Bearer <token>", "Basic <base64>" and bare
// "password <value>" pairs.
func (sc *Scanner) word(i int) {
	s := sc.s
	c := s[i]
	if c == '-' {
		sc.flag(i)
		return
	}
	if !ascii.IsLetter(c) && c != '_' {
		return
	}
	we := i
	for we < len(s) && ascii.IsNameChar(s[we]) {
		we++
	}
	if we >= len(s) || !ascii.IsBlank(s[we]) {
		return
	}
	w := s[i:we]
	vs := we
	for vs < len(s) && ascii.IsBlank(s[vs]) {
		vs++
	}
	if vs >= len(s) {
		return
	}
	switch {
	case ascii.EqualFold(w, "bearer"):
		if end := web.Bearer(s, vs); end >= 0 {
			sc.add(vs, end)
		}
		return
	case ascii.EqualFold(w, "basic"):
		if end := web.Basic(s, vs); end >= 0 {
			sc.add(vs, end)
		}
		return
	}
	// Bare "name value" is the weakest signal, so it needs a singular
	// secret word (not "secrets", "creds", "pass", "auth": kubectl get
	// secrets, pass show, gh auth login) and an opaque-looking value.
	if ascii.Lower(w[len(w)-1]) == 's' || ascii.EqualFold(w, "auth") {
		return
	}
	// The value test is cheaper and fails far more often: do it first.
	start, end, q := values.At(s, vs)
	v := s[start:end]
	if (q == '\'' || !values.IsShellRef(v)) && values.Opaque(v) && names.Classify(w, names.InKey, sc.extra) == names.StrongSecret {
		sc.add(start, end)
	}
}

// flag handles --name value and -name value (single-dash long flags such
// as keytool's -storepass); one-letter flags (-p value) are ambiguous and
// only curl's -u user:password is understood.
func (sc *Scanner) flag(i int) {
	s := sc.s
	j := i
	for j < len(s) && s[j] == '-' {
		j++
	}
	if j-i > 2 {
		return
	}
	ne := j
	for ne < len(s) && ascii.IsNameChar(s[ne]) {
		ne++
	}
	if ne >= len(s) || !ascii.IsBlank(s[ne]) {
		return // --name=value is handled by assign
	}
	vs := ne
	for vs < len(s) && ascii.IsBlank(s[vs]) {
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
	cls := names.Classify(name, names.InFlag, sc.extra)
	if cls == names.NotSecret {
		return
	}
	start, end, q := values.At(s, vs)
	if values.Worth(s[start:end], cls, q) {
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
func (sc *Scanner) userPass(vs int) {
	s := sc.s
	start, end, q := values.At(s, vs)
	v := s[start:end]
	k := strings.IndexByte(v, ':')
	if k < 0 {
		return
	}
	user, pass := v[:k], v[k+1:]
	if pass == "" || pass == values.Mask || (q != '\'' && values.IsShellRef(pass)) || user == pass || (ascii.IsDigits(user) && ascii.IsDigits(pass)) || repeated(pass) {
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
		if c := u[i]; !ascii.IsAlnum(c) && c != '.' && c != '_' && c != '-' && c != '@' {
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
