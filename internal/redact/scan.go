package redact

import "strings"

// span is a [start,end) byte range of the input to replace with Mask.
type span struct{ start, end int }

// scanner makes one pass over a string and collects the spans to replace.
// It is a single left-to-right walk that reacts to a few bytes ('=', ':',
// "-----", the start of a word or argument) instead of running many
// regular expressions; it allocates only when it finds something.
type scanner struct {
	s       string
	r       *Redactor
	spans   []span
	covered int  // the largest span end so far
	aws     int8 // whether s mentions AWS: 0 not yet known, 1 yes, -1 no

	memo     [4]runMemo // see run
	memoNext int
}

func (sc *scanner) add(start, end int) {
	if start >= end || sc.s[start:end] == Mask {
		return
	}
	sc.spans = append(sc.spans, span{start, end})
	sc.covered = max(sc.covered, end)
}

func (sc *scanner) scan() {
	s := sc.s
	b64 := 0 // start of the current run of base64 bytes, for awsSecret
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isB64(c) {
			if i-b64 == awsSecretLen {
				sc.awsSecret(b64, i)
			}
			b64 = i + 1
		}
		switch c {
		// An '=' or ':' inside a value already replaced could only find a
		// value inside it again; skipping them keeps "token=token=..." linear.
		case '=':
			if i >= sc.covered {
				sc.assign(i)
			}
		case ':':
			if i >= sc.covered {
				sc.colon(i)
			}
		case '-':
			if strings.HasPrefix(s[i:], pemBegin) {
				if end := sc.pem(i); end > i {
					i, b64 = end-1, end
					continue
				}
			}
		}
		argStart := i == 0 || isArgBoundary(s[i-1])
		if isAlnum(c) && (i == 0 || !isAlnum(s[i-1])) {
			if mayStartToken(s, i) {
				if end := sc.token(i); end > 0 {
					sc.add(i, end)
					i, b64 = end-1, end
					continue
				}
			}
			if argStart {
				sc.word(i)
			}
			// Nothing can start inside a run of letters and digits: skip
			// to its end in a tight loop (most of a command is such runs).
			for i+1 < len(s) && isAlnum(s[i+1]) {
				i++
			}
			continue
		}
		if argStart {
			sc.word(i)
		}
	}
	if len(s)-b64 == awsSecretLen {
		sc.awsSecret(b64, len(s))
	}
}

// awsSecretLen is the length of an AWS secret access key.
const awsSecretLen = 40

// awsSecret replaces s[start:end], a run of exactly 40 base64 bytes, when
// it has the shape of an AWS secret access key (mixed case and a digit)
// and the string mentions AWS: that shape alone is too generic.
func (sc *scanner) awsSecret(start, end int) {
	s := sc.s
	if end < len(s) && s[end] == '=' { // padded base64 is something else
		return
	}
	var upper, lowerSeen, digit bool
	for _, c := range []byte(s[start:end]) {
		upper = upper || isUpper(c)
		lowerSeen = lowerSeen || isLower(c)
		digit = digit || isDigit(c)
	}
	if upper && lowerSeen && digit && sc.mentionsAWS() {
		sc.add(start, end)
	}
}

// isArgBoundary precedes a shell argument or a word of prose.
func isArgBoundary(c byte) bool {
	switch c {
	case '"', '\'', '`', '(', ';', '|', '&', ':':
		return true
	}
	return isSpace(c)
}

func (sc *scanner) mentionsAWS() bool {
	if sc.aws == 0 {
		sc.aws = -1
		if containsFold(sc.s, "aws") || strings.Contains(sc.s, "AKIA") || strings.Contains(sc.s, "ASIA") {
			sc.aws = 1
		}
	}
	return sc.aws > 0
}

// assign handles NAME=value, export NAME="x", --name=value, key = value
// (INI), ?token=x&... (query strings) and Password=x; (connection strings).
func (sc *scanner) assign(e int) {
	s := sc.s
	if e == 0 || (e+1 < len(s) && s[e+1] == '=') {
		return
	}
	switch s[e-1] { // ==, !=, <=, +=, :=, ...: comparisons and operators
	case '=', '!', '<', '>', '+', '*', '/', '%', '&', '|', '^', '~', ':':
		return
	}
	ne := e
	for ne > 0 && isBlank(s[ne-1]) {
		ne--
	}
	spaced := ne < e
	// env['API_TOKEN']=, process.env["TOKEN"] = and "password"= quote the name.
	if ne > 0 && s[ne-1] == ']' {
		ne--
	}
	var q byte
	if ne > 0 && (s[ne-1] == '"' || s[ne-1] == '\'') {
		q = s[ne-1]
		ne--
	}
	ns := ne
	for ns > 0 && isNameChar(s[ns-1]) {
		ns--
	}
	if ns == ne || (q != 0 && (ns == 0 || s[ns-1] != q)) {
		return
	}
	ctx := ctxKey
	if ns > 0 && (s[ns-1] == '?' || s[ns-1] == '&') {
		ctx = ctxQuery
	}
	cls := sc.r.classify(s[ns:ne], ctx)
	if cls == notSecret {
		return
	}
	vs := e + 1
	// In shell, "TOKEN= cmd" sets TOKEN to nothing; only "key = value"
	// (spaces on both sides, as in INI files) has its value after blanks.
	if spaced {
		for vs < len(s) && isBlank(s[vs]) {
			vs++
		}
	}
	start, end, q := valueAt(s, vs)
	if worthRedacting(s[start:end], cls, q) && !sc.isCode(start, end, q) {
		sc.add(start, end)
	}
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
	var q byte
	if ne > 0 && (s[ne-1] == '"' || s[ne-1] == '\'') {
		q = s[ne-1]
		ne--
		if ne > 0 && s[ne-1] == '\\' { // \"name\": an escaped JSON string
			ne--
		}
	}
	ns := ne
	for ns > 0 && isNameChar(s[ns-1]) {
		ns--
	}
	if ns == ne || (q != 0 && (ns == 0 || s[ns-1] != q)) {
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
	if q == 0 && (i >= len(s) || !isBlank(s[i])) && !strings.ContainsAny(name, "-_") {
		return
	}
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	if n := schemeLen(s[i:]); n > 0 { // token: Bearer xyz
		i += n
		for i < len(s) && isBlank(s[i]) {
			i++
		}
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
func (sc *scanner) header(i int) {
	s := sc.s
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	start, end := i, i
	if i < len(s) && (s[i] == '"' || s[i] == '\'' || s[i] == '\\') {
		start, end, _ = valueAt(s, i)
	} else {
		for end < len(s) && !isHeaderEnd(s[end]) {
			end++
		}
	}
	// Digest never sends the password, and its quoted parameters would
	// be cut at the first quote; it is left as is.
	if hasPrefixFold(s[start:end], "Digest ") {
		return
	}
	start = skipScheme(s, start, end)
	for end > start && isBlank(s[end-1]) {
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
// when a blank follows it, else 0.
func schemeLen(v string) int {
	for _, sch := range authSchemes {
		if len(v) > len(sch) && hasPrefixFold(v, sch) && isBlank(v[len(sch)]) {
			return len(sch)
		}
	}
	return 0
}

func skipScheme(s string, start, end int) int {
	if n := schemeLen(s[start:end]); n > 0 {
		start += n
		for start < end && isBlank(s[start]) {
			start++
		}
	}
	return start
}

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

const pemBegin = "-----BEGIN "

// pem replaces the body of a private key block, up to its END line or,
// for a truncated block, to the end of the string. It returns where to
// resume scanning, or -1 when this is not a private key.
func (sc *scanner) pem(i int) int {
	s := sc.s
	ls := i + len(pemBegin)
	le := strings.Index(s[ls:min(len(s), ls+64)], "-----")
	if le < 0 || !strings.Contains(s[ls:ls+le], "PRIVATE KEY") {
		return -1
	}
	bs := ls + le + len("-----")
	// A real block breaks the line (or, flattened, leaves a blank) after
	// its BEGIN line; grep "-----BEGIN RSA PRIVATE KEY-----" does not.
	if rest := s[bs:]; rest != "" && !isSpace(rest[0]) && !strings.HasPrefix(rest, `\n`) && !strings.HasPrefix(rest, `\r`) {
		return -1
	}
	be := len(s)
	if k := strings.Index(s[bs:], "-----END "); k >= 0 {
		be = bs + k
	}
	// Keep the line breaks, real or escaped as \n, around the body.
	for bs < be {
		if isSpace(s[bs]) {
			bs++
		} else if strings.HasPrefix(s[bs:be], `\n`) || strings.HasPrefix(s[bs:be], `\r`) {
			bs += 2
		} else {
			break
		}
	}
	for be > bs {
		if isSpace(s[be-1]) {
			be--
		} else if strings.HasSuffix(s[bs:be], `\n`) || strings.HasSuffix(s[bs:be], `\r`) {
			be -= 2
		} else {
			break
		}
	}
	sc.add(bs, be)
	return max(be, bs)
}

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
// 1000:1000 and -u root:root are user:group pairs and stay.
func (sc *scanner) userPass(vs int) {
	s := sc.s
	start, end, q := valueAt(s, vs)
	v := s[start:end]
	k := strings.IndexByte(v, ':')
	if k <= 0 {
		return
	}
	user, pass := v[:k], v[k+1:]
	if pass == "" || pass == Mask || (q != '\'' && isShellRef(pass)) || user == pass || (isDigits(user) && isDigits(pass)) {
		return
	}
	sc.add(start+k+1, end)
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

// valueAt parses the value that starts at i and returns the bounds of its
// content (inside the quotes when quoted) and the quote byte, 0 if none.
// An unclosed quote runs to the end of the line.
func valueAt(s string, i int) (start, end int, quote byte) {
	if i >= len(s) {
		return i, i, 0
	}
	c := s[i]
	switch {
	case c == '"' || c == '\'':
		j := i + 1
		for j < len(s) && s[j] != c && s[j] != '\n' {
			if c == '"' && s[j] == '\\' && j+1 < len(s) { // \" does not close "..."
				j++
			}
			j++
		}
		return i + 1, min(j, len(s)), c
	case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\''):
		q := s[i+1]
		j := i + 2
		for j < len(s) && !(s[j] == '\\' && j+1 < len(s) && s[j+1] == q) && s[j] != '\n' {
			j++
		}
		return i + 2, j, q
	}
	j := i
	for j < len(s) {
		if s[j] == '[' && strings.HasPrefix(s[j:], Mask) {
			j += len(Mask) // an earlier replacement is one unit, not "[REDACTED" + "]"
			continue
		}
		if isTerminator(s[j]) {
			break
		}
		j++
	}
	return i, j, 0
}

// worthRedacting reports whether v, the value of a name of class cls, is
// a secret rather than a reference to one or a placeholder.
func worthRedacting(v string, cls class, quote byte) bool {
	if v == "" || v == Mask || isPlaceholder(v) || isPathLike(v) {
		return false
	}
	// $TOKEN, ${TOKEN}, $(cat f) name a secret without holding it; inside
	// single quotes the shell does not expand, so there it is literal.
	if quote != '\'' && isShellRef(v) {
		return false
	}
	if cls == weakSecret {
		return opaque(v)
	}
	return true
}

func isShellRef(v string) bool {
	if len(v) >= 2 && v[0] == '$' && (v[1] == '{' || v[1] == '(' || v[1] == '_' || isLetter(v[1])) {
		return true
	}
	if len(v) >= 3 && v[0] == '%' && v[len(v)-1] == '%' { // %TOKEN% (cmd.exe)
		return true
	}
	return strings.HasPrefix(v, "{{") // templates: {{ .Token }}
}

// placeholders are values that say "no secret here".
var placeholders = [...]string{"true", "false", "yes", "no", "on", "off", "null", "nil", "none", "undefined"}

func isPlaceholder(v string) bool {
	if inFold(v, placeholders[:]) {
		return true
	}
	if len(v) >= 2 && v[0] == '<' && v[len(v)-1] == '>' { // <your-token>
		return true
	}
	for i := 0; i < len(v); i++ { // ***, xxxx, ...
		if v[i] != v[0] || (v[0] != '*' && v[0] != 'x' && v[0] != 'X' && v[0] != '.') {
			return false
		}
	}
	return true
}

// isPathLike spots file names given where a secret could be:
// GOOGLE_APPLICATION_CREDENTIALS=/path/sa.json, PWD=/home/me.
func isPathLike(v string) bool {
	return v[0] == '/' || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
}

// opaque reports whether v looks like a generated credential: long enough,
// letters and digits, no spaces, and not a lower-case slug or file name
// (db-creds-2, client2.pem).
func opaque(v string) bool {
	if len(v) < 8 || isPathLike(v) {
		return false
	}
	var letter, digit, upper, sep bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isSpace(c):
			return false
		case isUpper(c):
			upper, letter = true, true
		case isLower(c):
			letter = true
		case isDigit(c):
			digit = true
		case c == '-' || c == '.' || c == '_':
			sep = true
		}
	}
	return letter && digit && (upper || !sep)
}
