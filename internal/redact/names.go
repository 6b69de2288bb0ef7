package redact

// class is how strongly a name (an object key, a variable, a flag) says
// that its value is a secret.
type class uint8

const (
	notSecret class = iota
	// weakSecret names are ambiguous ("key", "--key"): the value is only
	// replaced when it looks like an opaque credential (see opaque).
	weakSecret
	// strongSecret names ("password", "GITHUB_TOKEN") have their value
	// replaced whatever it looks like, apart from shell references and
	// paths (see worthRedacting).
	strongSecret
)

// nameContext says where a name was found; some words only count in one place.
type nameContext uint8

const (
	ctxKey   nameContext = iota // object key, NAME=value, name: value
	ctxQuery                    // URL query parameter: sig= and signature= count too
	ctxFlag                     // --name value: boolean-looking flags (--no-auth) do not count
)

// strongWords name a secret when they are the last segment of a name.
var strongWords = [...]string{
	"password", "passwd", "passphrase", "pass", "pwd", "passin", "passout",
	"storepass", "keypass", "secret", "secrets", "token", "credential",
	"credentials", "creds", "cookie", "cookies", "auth", "authorization",
	"apikey", "accesskey", "secretkey", "privatekey", "privkey", "authkey",
}

// compoundSuffixes catch run-together names such as PGPASSWORD, authtoken or
// MYAPIKEY. Short stems (pass, key, auth) are deliberately absent: bypass,
// monkey and oauth are ordinary words.
var compoundSuffixes = [...]string{
	"password", "passwd", "passphrase", "secret", "token", "credentials",
	"credential", "apikey", "accesskey", "secretkey", "privatekey",
}

// tokenQualifiers before "token" mean a count or a tokenizer symbol, not a
// credential: max_token, next_token, eos_token, pad_token.
var tokenQualifiers = [...]string{
	"max", "min", "num", "count", "total", "n", "next", "page", "pagination",
	"continuation", "cancellation", "cancel", "eos", "bos", "pad", "unk", "sep",
	"cls", "mask", "special", "start", "end", "stop", "input", "output",
}

// keyQualifiers before "key" mean a data-structure or database key, not a
// credential: primary_key, sort_keys, cache-key, public_key.
var keyQualifiers = [...]string{
	"primary", "foreign", "sort", "partition", "cache", "hash", "range", "row",
	"column", "index", "idx", "unique", "composite", "natural", "surrogate",
	"lookup", "map", "dict", "object", "s3", "bucket", "public", "pub",
	"registry", "routing", "shard", "group", "dedup", "dedupe", "idempotency",
	"hot", "short", "shortcut", "translation", "i18n", "locale", "message",
	"config", "json", "yaml", "toml", "env", "query", "search", "sequence",
	"order", "join", "recv", "send", "list", "import", "export", "delete",
	"fetch", "item", "tag", "label", "field", "attr", "attribute", "metric",
	"record", "entry", "node", "element", "option", "param", "property", "prop",
	"name", "type", "max", "min", "num", "count", "total", "n", "react",
}

// neutralSuffixes may follow the secret word without changing its meaning:
// password_confirm, token_value, secret_key_base, API_KEY_2.
var neutralSuffixes = [...]string{
	"value", "val", "b64", "base64", "base", "hex", "raw", "str", "string",
	"plain", "plaintext", "text", "enc", "encoded", "encrypted", "bytes", "new",
	"old", "confirm", "confirmation", "current", "v", "hash",
}

// flagNegations start boolean flags whose next argument is not their value:
// --no-auth, --with-token, --show-secret, --skip-password.
var flagNegations = [...]string{
	"no", "not", "non", "skip", "disable", "disabled", "enable", "enabled",
	"without", "with", "show", "hide", "print", "ignore", "allow", "require",
	"required", "prompt", "ask", "has", "is", "list", "generate", "gen",
	"revoke", "rotate", "reset", "delete", "remove", "max", "min", "num", "count",
}

// segment is a [start,end) slice of a name.
type segment struct{ a, b int }

// maxSegments bounds the split; longer names are treated as not secret,
// since no real variable or header has that many parts.
const maxSegments = 16

// classify decides whether name names a secret. It splits the name into
// lower-case words at punctuation, camelCase humps and letter/digit changes,
// then looks at the last meaningful word: "GITHUB_TOKEN", "X-Api-Key" and
// "clientSecret" are secret, "KEYBOARD", "author" and "input_tokens" are not.
//
// Every secret word contains one of the stems pass, pwd, secret, token,
// key, cred, auth, cookie or sig; hasRoot checks for them first, which
// keeps the split off the common path.
func (r *Redactor) classify(name string, ctx nameContext) class {
	if !hasRoot(name) && !r.hasExtraRoot(name) {
		return notSecret
	}
	var segs [maxSegments]segment
	n := split(name, &segs)
	if n == 0 {
		return notSecret
	}
	first := name[segs[0].a:segs[0].b]
	// Drop trailing neutral segments and numbers (API_KEY_2, password_confirm).
	for n > 1 {
		w := name[segs[n-1].a:segs[n-1].b]
		if !isDigits(w) && !inFold(w, neutralSuffixes[:]) {
			break
		}
		n--
	}
	last := name[segs[n-1].a:segs[n-1].b]
	prev := ""
	if n > 1 {
		prev = name[segs[n-2].a:segs[n-2].b]
		if ctx == ctxFlag && inFold(first, flagNegations[:]) {
			return notSecret
		}
	}
	for _, k := range r.extraKeys() {
		if equalFold(last, k) {
			return strongSecret
		}
	}
	switch {
	case equalFold(last, "token"):
		if inFold(prev, tokenQualifiers[:]) {
			return notSecret
		}
		return strongSecret
	case equalFold(last, "key"), equalFold(last, "keys"):
		if prev == "" {
			return weakSecret
		}
		if inFold(prev, keyQualifiers[:]) {
			return notSecret
		}
		return strongSecret
	case equalFold(last, "sig"), equalFold(last, "signature"):
		// Signatures in presigned URLs (X-Amz-Signature, Azure SAS sig=)
		// grant access; elsewhere a signature is public data.
		if ctx == ctxQuery {
			return strongSecret
		}
		return notSecret
	case inFold(last, strongWords[:]):
		return strongSecret
	}
	for _, suf := range compoundSuffixes {
		if len(last) > len(suf) && equalFold(last[len(last)-len(suf):], suf) {
			return strongSecret
		}
	}
	return notSecret
}

// hasRoot reports whether name contains one of roots, ignoring case.
func hasRoot(name string) bool {
	for i := 0; i < len(name); i++ {
		rest := name[i+1:]
		switch lower(name[i]) {
		case 'p':
			if hasPrefixFold(rest, "ass") || hasPrefixFold(rest, "wd") {
				return true
			}
		case 's':
			if hasPrefixFold(rest, "ecret") || hasPrefixFold(rest, "ig") {
				return true
			}
		case 't':
			if hasPrefixFold(rest, "oken") {
				return true
			}
		case 'k':
			if hasPrefixFold(rest, "ey") {
				return true
			}
		case 'c':
			if hasPrefixFold(rest, "red") || hasPrefixFold(rest, "ookie") {
				return true
			}
		case 'a':
			if hasPrefixFold(rest, "uth") {
				return true
			}
		}
	}
	return false
}

// split cuts name into words. It never allocates: the words are index
// pairs into name. It returns 0 when there are more than maxSegments words.
func split(name string, segs *[maxSegments]segment) int {
	n := 0
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		if i == len(name) || !isAlnum(c) {
			if start >= 0 {
				if n == maxSegments {
					return 0
				}
				segs[n] = segment{start, i}
				n++
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		p := name[i-1]
		boundary := (isLower(p) && isUpper(c)) ||
			(isDigit(p) != isDigit(c)) ||
			// "APIKey": the hump starts at K, the upper-case run before it is a word.
			(isUpper(p) && isUpper(c) && i+1 < len(name) && isLower(name[i+1]))
		if boundary {
			if n == maxSegments {
				return 0
			}
			segs[n] = segment{start, i}
			n++
			start = i
		}
	}
	return n
}

func inFold(w string, list []string) bool {
	for _, x := range list {
		if equalFold(w, x) {
			return true
		}
	}
	return false
}

// equalFold is strings.EqualFold for ASCII only: every word the rules
// compare is ASCII, and Unicode folding (the Kelvin sign folds to k) would
// only make matches harder to predict.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && equalFold(s[:len(prefix)], prefix)
}

// containsFold reports whether sub (lower-case ASCII) occurs in s, ignoring case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if lower(s[i]) == sub[0] && equalFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func isDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return w != ""
}
