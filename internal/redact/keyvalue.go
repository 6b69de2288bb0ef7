package redact

import "strings"

// Names followed by their values: NAME=value, name: value, headers.

// assign handles NAME=value, export NAME="x", --name=value, key = value
// (INI), ?token=x&... (query strings), Password=x; (connection strings)
// and the assignment operators of other languages: NAME := v (Go, Make),
// NAME ::= v, NAME ?= v (Make), 'name' => v (PHP, Ruby), and a declared
// type between name and value (var token string = "v", const token:
// string = "v").
func (sc *scanner) assign(e int) {
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
	for ne > 0 && isBlank(s[ne-1]) {
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
	if spaced && inFold(s[ns:ne], typeWords[:]) { // var token string = "v"
		if ns, ne, ok = declaredName(s, ns); !ok {
			return
		}
	}
	ctx := ctxKey
	if ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') {
		ctx = ctxQuery
	}
	name := s[ns:ne]
	cls := sc.r.classify(name, ctx)
	vs := e + 1
	if arrow {
		vs++
	}
	// In shell, "TOKEN= cmd" sets TOKEN to nothing; only "key = value"
	// (spaces on both sides, as in INI files) has its value after blanks.
	if spaced {
		for vs < len(s) && isBlank(s[vs]) {
			vs++
		}
	}
	if cls == notSecret {
		// A credential pair (CURL_AUTH_USER=user:pw, Sidekiq's
		// hex:hex) or an opaque value under a name that holds a secret
		// word anywhere (KUBERNETES_SECRET_YAML=<base64>). The value is
		// read only then: reading it for every '=' of "a=a=a=..." would
		// make the scan quadratic.
		if mentionsSecret(name) {
			start, end, q := valueAt(s, vs)
			if v := s[start:end]; (q == '\'' || !isShellRef(v)) && (opaque(v) || isUserPass(v)) {
				sc.add(start, end)
			}
		} else if vs+17 <= len(s) && isSidekiqCreds(s[vs:vs+17]) && (vs+17 == len(s) || isTerminator(s[vs+17])) {
			sc.add(vs, vs+17)
		}
		return
	}
	start, end, q := valueAt(s, vs)
	if ctx == ctxQuery && q == 0 {
		end = queryValueEnd(s, start)
	}
	v := s[start:end]
	// A shell or URL value is literal text; only program text can name a
	// variable (token = csrfToken).
	literal := ctx == ctxQuery || (!spaced && isUpperName(name))
	if worthRedacting(v, cls, q) && !sc.isCall(end, q) && (literal || !sc.isCode(start, end, q)) {
		sc.add(start, end)
	}
}

// isCall reports an unquoted value that is a call: token = mint(id),
// TOKEN=$(gh auth token).
func (sc *scanner) isCall(end int, quote byte) bool {
	return quote == 0 && end < len(sc.s) && sc.s[end] == '('
}

// declaredName finds the name before a type annotation that starts at t:
// "token string" (Go) or "token: string" (TypeScript).
func declaredName(s string, t int) (ns, ne int, ok bool) {
	ne = t
	for ne > 0 && isBlank(s[ne-1]) {
		ne--
	}
	if ne > 0 && s[ne-1] == ':' {
		ne--
		for ne > 0 && isBlank(s[ne-1]) {
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
		if s[i] == '[' && strings.HasPrefix(s[i:], Mask) {
			i += len(Mask)
			continue
		}
		switch c := s[i]; {
		case c == '&', c == '#', c == '"', c == '\'', c == '`', c == '\\', isSpace(c):
			return i
		}
		i++
	}
	return i
}

// isUpperName reports an environment-style name: upper case, digits, _.
func isUpperName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return name != ""
}

// mentionsSecret reports whether a word of name other than the last is a
// secret word: CURL_AUTH_USER, KUBERNETES_SECRET_YAML.
func mentionsSecret(name string) bool {
	if !hasRoot(name) {
		return false
	}
	var segs [maxSegments]segment
	n := split(name, &segs)
	for k := 0; k < n; k++ {
		w := name[segs[k].a:segs[k].b]
		if equalFold(w, "token") || equalFold(w, "auth") || inFold(w, strongWords[:]) {
			return true
		}
	}
	return false
}

// isUserPass reports a user:password pair: one colon, something on both
// sides, no blank or slash, and not host:port.
func isUserPass(v string) bool {
	k := strings.IndexByte(v, ':')
	if k < 0 || k == len(v)-1 || strings.IndexByte(v[k+1:], ':') >= 0 || strings.ContainsAny(v, " \t/") {
		return false
	}
	return !isDigits(v[k+1:])
}

// isSidekiqCreds reports Sidekiq Enterprise's credential shape, eight hex
// digits, a colon and eight more (BUNDLE_ENTERPRISE__CONTRIBSYS__COM=...).
func isSidekiqCreds(v string) bool {
	if len(v) != 17 || v[8] != ':' {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i != 8 && !isHex(v[i]) {
			return false
		}
	}
	return true
}

// isCode reports whether an unquoted value is program text rather than a
// literal: a call (token = mint(id)) or a variable whose own name is a
// secret name (token: csrfToken, key = process.env.API_KEY). A literal
// secret with digits (password: MyPassword1) still counts as a secret.
func (sc *scanner) isCode(start, end int, quote byte) bool {
	s := sc.s
	if quote != 0 {
		return false
	}
	if end < len(s) && s[end] == '(' {
		return true
	}
	v := s[start:end]
	if v == "" || !isLower(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isLetter(c) && c != '_' && c != '.' {
			return false
		}
	}
	return sc.r.classify(v, ctxKey) != notSecret
}

// headerNames have a whole header value as secret, spaces included.
var headerNames = [...]string{"authorization", "proxy-authorization", "cookie", "set-cookie"}

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
	for ns > 0 && isNameChar(s[ns-1]) {
		ns--
	}
	if ns == ne || (q != 0 && (ns == 0 || s[ns-1] != q)) {
		return 0, 0, 0, false
	}
	return ns, ne, q, true
}

// colon handles "name": "value" (JSON), name: value (YAML, headers, Go
// literals), Authorization:/Cookie: headers and scheme://user:pass@host.
func (sc *scanner) colon(c int) {
	s := sc.s
	if strings.HasPrefix(s[c:], "://") {
		sc.url(c)
		return
	}
	if c+1 < len(s) && (s[c+1] == ':' || s[c+1] == '=') {
		return
	}
	ne := c
	for ne > 0 && isBlank(s[ne-1]) {
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
	if inFold(name, headerNames[:]) {
		sc.header(c + 1)
		return
	}
	cls := sc.r.classify(name, ctxKey)
	if cls == notSecret {
		return
	}
	i := c + 1
	// "rails credentials:edit" and "mix auth:login" are task names: an
	// unquoted one-word name needs a space after the colon to be a key.
	if q == 0 && blankAt(s, i) == 0 && !strings.ContainsAny(name, "-_") {
		return
	}
	i = skipBlanks(s, i)
	if n := schemeLen(s[i:]); n > 0 { // token: Bearer xyz
		i = skipBlanks(s, i+n)
	}
	start, end, quote := valueAt(s, i)
	if quote != 0 {
		start = skipScheme(s, start, end)
	}
	v := s[start:end]
	if quote == 0 && inFold(v, typeWords[:]) {
		return
	}
	if worthRedacting(v, cls, quote) && !sc.isCode(start, end, quote) {
		sc.add(start, end)
	}
}

// header replaces an Authorization or Cookie header value, from after the
// colon to the end of the line or of the enclosing quotes, keeping the auth
// scheme (Bearer, Basic, token...) so the record still says what was sent.
// A header written as one shell word with escaped blanks
// (-H Authorization:\ Bearer\ xyz) ends where that word ends.
func (sc *scanner) header(i int) {
	s := sc.s
	// An escaped blank right after the colon, or one inside the value
	// before any plain blank, makes the header a single shell word.
	shell := false
	for n := blankAt(s, i); n > 0; n = blankAt(s, i) {
		shell = shell || n == 2
		i += n
	}
	start, end := i, i
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '\\') {
		start, end, _ = valueAt(s, i)
	} else {
		plain := false // a plain blank seen: prose, which runs to the end of the line
		for end < len(s) {
			ch := s[end]
			if blankAt(s, end) == 2 {
				shell = shell || !plain
				end += 2
				continue
			}
			if shell {
				if ch == '[' && strings.HasPrefix(s[end:], Mask) {
					end += len(Mask) // an earlier replacement is one unit
					continue
				}
				if ch == '\\' && end+1 < len(s) && s[end+1] != '\n' && s[end+1] != '\r' {
					end += 2 // \; \& ...: an escaped byte stays in the word
					continue
				}
				if isTerminator(ch) {
					break
				}
			} else if isHeaderEnd(ch) {
				break
			}
			plain = plain || isBlank(ch)
			end++
		}
	}
	// Digest never sends the password, and its quoted parameters would
	// be cut at the first quote; it is left as is.
	if hasPrefixFold(s[start:end], "Digest ") {
		return
	}
	start = skipScheme(s, start, end)
	for end > start && isBlank(s[end-1]) && (end-2 < start || s[end-2] != '\\') {
		end--
	}
	v := s[start:end]
	if v == "" || v == Mask || (isShellRef(v) && strings.IndexByte(v, ' ') < 0) {
		return
	}
	sc.add(start, end)
}

func isHeaderEnd(c byte) bool {
	return c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '`' || c == '\\'
}

// authSchemes prefix Authorization values and are kept in clear.
var authSchemes = [...]string{"Bearer", "Basic", "Digest", "Token", "Bot", "Negotiate", "NTLM", "ApiKey", "AWS4-HMAC-SHA256"}

// schemeLen returns the length of an auth scheme word at the start of v
// when a blank or a shell-escaped blank follows it, else 0.
func schemeLen(v string) int {
	for _, sch := range authSchemes {
		if len(v) > len(sch) && hasPrefixFold(v, sch) && blankAt(v, len(sch)) > 0 {
			return len(sch)
		}
	}
	return 0
}

func skipScheme(s string, start, end int) int {
	if n := schemeLen(s[start:end]); n > 0 {
		start = min(skipBlanks(s[:end], start+n), end)
	}
	return start
}

// blankAt returns the width of the blank at s[i]: 1 for a space or a tab,
// 2 for a shell-escaped one ("\ "), 0 for anything else.
func blankAt(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case isBlank(s[i]):
		return 1
	case s[i] == '\\' && i+1 < len(s) && isBlank(s[i+1]):
		return 2
	}
	return 0
}

// skipBlanks returns the index of the first byte at or after i that is
// not a blank or a shell-escaped blank.
func skipBlanks(s string, i int) int {
	for n := blankAt(s, i); n > 0; n = blankAt(s, i) {
		i += n
	}
	return i
}

// comma handles a quoted name and a quoted value passed side by side:
// setProperty("API_TOKEN", "v"), os.Setenv("PASSWORD", "v"),
// put('secret', 'v').
func (sc *scanner) comma(c int) {
	s := sc.s
	ne := c
	for ne > 0 && isBlank(s[ne-1]) {
		ne--
	}
	if ne == 0 || (s[ne-1] != '"' && s[ne-1] != '\'') {
		return
	}
	ns, ne, _, ok := nameBefore(s, ne)
	if !ok {
		return
	}
	cls := sc.r.classify(s[ns:ne], ctxKey)
	if cls == notSecret {
		return
	}
	vs := c + 1
	for vs < len(s) && isBlank(s[vs]) {
		vs++
	}
	if vs >= len(s) || (s[vs] != '"' && s[vs] != '\'') {
		return
	}
	start, end, q := valueAt(s, vs)
	if worthRedacting(s[start:end], cls, q) {
		sc.add(start, end)
	}
}

// xmlElement handles <apiToken>v</apiToken> and <password>v</password>:
// an element named like a secret whose text is the value.
func (sc *scanner) xmlElement(gt int) {
	s := sc.s
	ns := gt
	for ns > 0 && (isNameChar(s[ns-1]) || s[ns-1] == ':') {
		ns--
	}
	if ns == gt || ns == 0 || s[ns-1] != '<' {
		return
	}
	name := s[ns:gt]
	if k := strings.LastIndexByte(name, ':'); k >= 0 { // a namespace prefix
		name = name[k+1:]
	}
	cls := sc.r.classify(name, ctxKey)
	if cls == notSecret {
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
	for start < end && isSpace(s[start]) {
		start++
	}
	for end > start && isSpace(s[end-1]) {
		end--
	}
	if worthRedacting(s[start:end], cls, '\'') { // element text is literal: $X is not expanded
		sc.add(start, end)
	}
}
