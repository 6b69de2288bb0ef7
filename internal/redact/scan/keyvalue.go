package scan

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/names"
	"github.com/logbook-project/logbook/internal/redact/values"
	"github.com/logbook-project/logbook/internal/redact/web"
)

// Names followed by their values: NAME=value, name: value, headers.

// assign handles NAME=value, export NAME="x", --name=value, key = value
// (INI), ?token=x&... (query strings), Password=x; (connection strings)
// and the assignment operators of other languages: NAME := v (Go, Make),
// NAME ::= v, NAME ?= v (Make), 'name' => v (PHP, Ruby), and a declared
// type between name and value (var token string = "v", const token:
// string = "v").
func (sc *Scanner) assign(e int) {
	s := sc.s
	if e == 0 || (e+1 < len(s) && s[e+1] == '=') {
		return
	}
	arrow := e+1 < len(s) && s[e+1] == '>'
	ne := e
	switch s[e-1] {
	case ':': // := and ::=
		ne--
		if ne > 0 && s[ne-1] == ':' {
			ne--
		}
	case '?': // ?=
		ne--
	case '=', '!', '<', '>', '+', '*', '/', '%', '&', '|', '^', '~': // ==, !=, <=, +=...: comparisons and operators
		return
	}
	op := ne < e || arrow // an operator other than a plain '='
	for ne > 0 && ascii.IsBlank(s[ne-1]) {
		ne--
	}
	spaced := ne < e || op
	// env['API_TOKEN']=, process.env["TOKEN"] = and "password"= quote the name.
	if ne > 0 && s[ne-1] == ']' {
		ne--
	}
	ns, ne, _, ok := nameBefore(s, ne)
	if !ok {
		return
	}
	if spaced && ascii.InFold(s[ns:ne], typeWords[:]) { // var token string = "v"
		if ns, ne, ok = declaredName(s, ns); !ok {
			return
		}
	}
	ctx := names.InKey
	if ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') {
		ctx = names.InQuery
	}
	name := s[ns:ne]
	cls := names.Classify(name, ctx, sc.extra)
	vs := e + 1
	if arrow {
		vs++
	}
	// In shell, "TOKEN= cmd" sets TOKEN to nothing; only "key = value"
	// (spaces on both sides, as in INI files) has its value after blanks.
	if spaced {
		for vs < len(s) && ascii.IsBlank(s[vs]) {
			vs++
		}
	}
	if cls == names.NotSecret {
		// A credential pair (CURL_AUTH_USER=user:pw, Sidekiq's
		// hex:hex) or an opaque value under a name that holds a secret
		// word anywhere (KUBERNETES_SECRET_YAML=<base64>). The value is
		// read only then: reading it for every '=' of "a=a=a=..." would
		// make the scan quadratic.
		if names.MentionsSecret(name) {
			start, end, q := values.At(s, vs)
			if v := s[start:end]; (q == '\'' || !values.IsShellRef(v)) && (values.Opaque(v) || isUserPass(v)) {
				sc.add(start, end)
			}
		} else if vs+17 <= len(s) && isSidekiqCreds(s[vs:vs+17]) && (vs+17 == len(s) || ascii.IsTerminator(s[vs+17])) {
			sc.add(vs, vs+17)
		}
		return
	}
	start, end, q := values.At(s, vs)
	if ctx == names.InQuery && q == 0 {
		end = queryValueEnd(s, start)
	}
	v := s[start:end]
	// A shell or URL value is literal text; only program text can name a
	// variable (token = csrfToken).
	literal := ctx == names.InQuery || (!spaced && isUpperName(name))
	if values.Worth(v, cls, q) && !sc.isCall(end, q) && (literal || !sc.isCode(start, end, q)) {
		sc.add(start, end)
	}
}

// isCall reports an unquoted value that is a call: token = mint(id),
// TOKEN=$(gh auth token).
func (sc *Scanner) isCall(end int, quote byte) bool {
	return quote == 0 && end < len(sc.s) && sc.s[end] == '('
}

// declaredName finds the name before a type annotation that starts at t:
// "token string" (Go) or "token: string" (TypeScript).
func declaredName(s string, t int) (ns, ne int, ok bool) {
	ne = t
	for ne > 0 && ascii.IsBlank(s[ne-1]) {
		ne--
	}
	if ne > 0 && s[ne-1] == ':' {
		ne--
		for ne > 0 && ascii.IsBlank(s[ne-1]) {
			ne--
		}
	}
	if ne == t {
		return 0, 0, false
	}
	ns, ne, _, ok = nameBefore(s, ne)
	return ns, ne, ok
}

// queryValueEnd is where a URL query value ends: at the next parameter,
// the fragment, a blank or a quote. Bytes the shell would read as syntax
// (| < >) stay in it: the URL is quoted or it would not be one argument.
func queryValueEnd(s string, i int) int {
	for i < len(s) {
		if s[i] == '[' && strings.HasPrefix(s[i:], values.Mask) {
			i += len(values.Mask)
			continue
		}
		switch c := s[i]; {
		case c == '&', c == '#', c == '"', c == '\'', c == '`', c == '\\', ascii.IsSpace(c):
			return i
		}
		i++
	}
	return i
}

// isUpperName reports an environment-style name: upper case, digits, _.
func isUpperName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !ascii.IsUpper(c) && !ascii.IsDigit(c) && c != '_' {
			return false
		}
	}
	return name != ""
}

// isUserPass reports a user:password pair: one colon, something on both
// sides, no blank or slash, and not host:port.
func isUserPass(v string) bool {
	k := strings.IndexByte(v, ':')
	if k < 0 || k == len(v)-1 || strings.IndexByte(v[k+1:], ':') >= 0 || strings.ContainsAny(v, " \t/") {
		return false
	}
	return !ascii.IsDigits(v[k+1:])
}

// isSidekiqCreds reports Sidekiq Enterprise's credential shape, eight hex
// digits, a colon and eight more (BUNDLE_ENTERPRISE__CONTRIBSYS__COM=...).
func isSidekiqCreds(v string) bool {
	if len(v) != 17 || v[8] != ':' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 8 && !ascii.IsHex(v[i]) {
			return false
		}
	}
	return true
}

// isCode reports whether an unquoted value is program text rather than a
// literal: a call (token = mint(id)) or a variable whose own name is a
// secret name (token: csrfToken, key = process.env.API_KEY). A literal
// secret with digits (password: MyPassword1) still counts as a secret.
func (sc *Scanner) isCode(start, end int, quote byte) bool {
	s := sc.s
	if quote != 0 {
		return false
	}
	if end < len(s) && s[end] == '(' {
		return true
	}
	v := s[start:end]
	if v == "" || !ascii.IsLower(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !ascii.IsLetter(c) && c != '_' && c != '.' {
			return false
		}
	}
	return names.Classify(v, names.InKey, sc.extra) != names.NotSecret
}

// typeWords after "name:" are type annotations (password: string), not values.
var typeWords = [...]string{
	"string", "str", "number", "int", "integer", "int32", "int64", "uint",
	"float", "double", "bool", "boolean", "any", "unknown", "bytes", "object",
	"text", "varchar", "char", "optional", "required",
}

// nameBefore finds the name that ends at s[:ne], perhaps quoted ("name",
// 'name', or \"name\" inside an escaped JSON string): its bounds, its
// quote (0 for none), and whether there is one.
func nameBefore(s string, ne int) (ns, end int, q byte, ok bool) {
	if ne > 0 && (s[ne-1] == '"' || s[ne-1] == '\'') {
		q = s[ne-1]
		ne--
		if q == '"' && ne > 0 && s[ne-1] == '\\' {
			ne--
		}
	}
	ns = ne
	for ns > 0 && ascii.IsNameChar(s[ns-1]) {
		ns--
	}
	if ns == ne || (q != 0 && (ns == 0 || s[ns-1] != q)) {
		return 0, 0, 0, false
	}
	return ns, ne, q, true
}

// colon handles "name": "value" (JSON), name: value (YAML, headers, Go
// literals), Authorization:/Cookie: headers and scheme://user:pass@host.
func (sc *Scanner) colon(c int) {
	s := sc.s
	if strings.HasPrefix(s[c:], "://") {
		if a, b := web.URL(s, c); a >= 0 {
			sc.add(a, b)
		}
		return
	}
	if c+1 < len(s) && (s[c+1] == ':' || s[c+1] == '=') {
		return
	}
	ne := c
	for ne > 0 && ascii.IsBlank(s[ne-1]) {
		ne--
	}
	ns, ne, q, ok := nameBefore(s, ne)
	if !ok {
		return
	}
	if ns >= 2 && s[ns-2] == '$' && s[ns-1] == '{' { // ${TOKEN:-default}: shell expansion
		return
	}
	name := s[ns:ne]
	if web.IsHeader(name) {
		if a, b := web.Header(s, c+1); a >= 0 {
			sc.add(a, b)
		}
		return
	}
	cls := names.Classify(name, names.InKey, sc.extra)
	if cls == names.NotSecret {
		return
	}
	i := c + 1
	// "rails credentials:edit" and "mix auth:login" are task names: an
	// unquoted one-word name needs a space after the colon to be a key.
	if q == 0 && values.BlankAt(s, i) == 0 && !strings.ContainsAny(name, "-_") {
		return
	}
	i = values.SkipBlanks(s, i)
	if n := web.SchemeLen(s[i:]); n > 0 { // token: Bearer xyz
		i = values.SkipBlanks(s, i+n)
	}
	start, end, quote := values.At(s, i)
	if quote != 0 {
		start = web.SkipScheme(s, start, end)
	}
	v := s[start:end]
	if quote == 0 && ascii.InFold(v, typeWords[:]) {
		return
	}
	if values.Worth(v, cls, quote) && !sc.isCode(start, end, quote) {
		sc.add(start, end)
	}
}

// comma handles a quoted name and a quoted value passed side by side:
// setProperty("API_TOKEN", "v"), os.Setenv("PASSWORD", "v"),
// put('secret', 'v').
func (sc *Scanner) comma(c int) {
	s := sc.s
	ne := c
	for ne > 0 && ascii.IsBlank(s[ne-1]) {
		ne--
	}
	if ne == 0 || (s[ne-1] != '"' && s[ne-1] != '\'') {
		return
	}
	ns, ne, _, ok := nameBefore(s, ne)
	if !ok {
		return
	}
	cls := names.Classify(s[ns:ne], names.InKey, sc.extra)
	if cls == names.NotSecret {
		return
	}
	vs := c + 1
	for vs < len(s) && ascii.IsBlank(s[vs]) {
		vs++
	}
	if vs >= len(s) || (s[vs] != '"' && s[vs] != '\'') {
		return
	}
	start, end, q := values.At(s, vs)
	if values.Worth(s[start:end], cls, q) {
		sc.add(start, end)
	}
}

// xmlElement handles <apiToken>v</apiToken> and <password>v</password>:
// an element named like a secret whose text is the value.
func (sc *Scanner) xmlElement(gt int) {
	s := sc.s
	ns := gt
	for ns > 0 && (ascii.IsNameChar(s[ns-1]) || s[ns-1] == ':') {
		ns--
	}
	if ns == gt || ns == 0 || s[ns-1] != '<' {
		return
	}
	name := s[ns:gt]
	if k := strings.LastIndexByte(name, ':'); k >= 0 { // a namespace prefix
		name = name[k+1:]
	}
	cls := names.Classify(name, names.InKey, sc.extra)
	if cls == names.NotSecret {
		return
	}
	start := gt + 1
	end := start
	for end < len(s) && s[end] != '<' && s[end] != '\n' {
		end++
	}
	if !strings.HasPrefix(s[end:], "</") {
		return
	}
	for start < end && ascii.IsSpace(s[start]) {
		start++
	}
	for end > start && ascii.IsSpace(s[end-1]) {
		end--
	}
	if values.Worth(s[start:end], cls, '\'') { // element text is literal: $X is not expanded
		sc.add(start, end)
	}
}
