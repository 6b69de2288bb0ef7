// Package names decides whether a name (an object key, a variable, a
// flag, a header) says that its value is a secret: GITHUB_TOKEN, X-Api-Key
// and clientSecret do; KEYBOARD, author and input_tokens do not. Names are
// split into words at punctuation, camelCase humps and digits, and judged
// by their last meaningful word.
package names

import "github.com/logbook-project/logbook/internal/redact/ascii"

// Class is how strongly a name (an object key, a variable, a flag) says
// that its value is a secret.
type Class uint8

const (
	NotSecret Class = iota
	// WeakSecret names are ambiguous ("key", "--key"): the value is only
	// replaced when it looks like an opaque credential (see values.Opaque).
	WeakSecret
	// StrongSecret names ("password", "GITHUB_TOKEN") have their value
	// replaced whatever it looks like, apart from shell references and
	// paths (see values.Worth).
	StrongSecret
)

// Context says where a name was found; some words only count in one place.
type Context uint8

const (
	InKey   Context = iota // object key, NAME=value, name: value
	InQuery                // URL query parameter: sig= and signature= count too
	InFlag                 // --name value: boolean-looking flags (--no-auth) do not count
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

// Classify decides whether name names a secret; extra are a project's
// own secret words (lower case), matched like the built-in ones. It splits the name into
// lower-case words at punctuation, camelCase humps and letter/digit changes,
// then looks at the last meaningful word: "GITHUB_TOKEN", "X-Api-Key" and
// "clientSecret" are secret, "KEYBOARD", "author" and "input_tokens" are not.
//
// Every secret word contains one of the stems pass, pwd, secret, token,
// key, cred, auth, cookie or sig; HasRoot checks for them first, which
// keeps the split off the common path.
func Classify(name string, ctx Context, extra []string) Class {
	if !HasRoot(name) && !ContainsAny(name, extra) {
		return NotSecret
	}
	var segs [maxSegments]segment
	n := split(name, &segs)
	if n == 0 {
		return NotSecret
	}
	first := name[segs[0].a:segs[0].b]
	// Drop trailing neutral segments and numbers (API_KEY_2, password_confirm).
	for n > 1 {
		w := name[segs[n-1].a:segs[n-1].b]
		if !ascii.IsDigits(w) && !ascii.InFold(w, neutralSuffixes[:]) {
			break
		}
		n--
	}
	last := name[segs[n-1].a:segs[n-1].b]
	prev := ""
	if n > 1 {
		prev = name[segs[n-2].a:segs[n-2].b]
		if ctx == InFlag && ascii.InFold(first, flagNegations[:]) {
			return NotSecret
		}
	}
	for _, k := range extra {
		if ascii.EqualFold(last, k) {
			return StrongSecret
		}
	}
	switch {
	case ascii.EqualFold(last, "token"):
		if ascii.InFold(prev, tokenQualifiers[:]) {
			return NotSecret
		}
		return StrongSecret
	case ascii.EqualFold(last, "key"), ascii.EqualFold(last, "keys"):
		if prev == "" {
			return WeakSecret
		}
		if ascii.InFold(prev, keyQualifiers[:]) {
			return NotSecret
		}
		return StrongSecret
	case ascii.EqualFold(last, "sig"), ascii.EqualFold(last, "signature"):
		// Signatures in presigned URLs (X-Amz-Signature, Azure SAS sig=)
		// grant access; elsewhere a signature is public data.
		if ctx == InQuery {
			return StrongSecret
		}
		return NotSecret
	case ascii.InFold(last, strongWords[:]):
		return StrongSecret
	}
	for _, suf := range compoundSuffixes {
		if len(last) > len(suf) && ascii.EqualFold(last[len(last)-len(suf):], suf) {
			return StrongSecret
		}
	}
	return NotSecret
}

// HasRoot reports whether name contains one of roots, ignoring case.
func HasRoot(name string) bool {
	for i := 0; i < len(name); i++ {
		rest := name[i+1:]
		switch ascii.Lower(name[i]) {
		case 'p':
			if ascii.HasPrefixFold(rest, "ass") || ascii.HasPrefixFold(rest, "wd") {
				return true
			}
		case 's':
			if ascii.HasPrefixFold(rest, "ecret") || ascii.HasPrefixFold(rest, "ig") {
				return true
			}
		case 't':
			if ascii.HasPrefixFold(rest, "oken") {
				return true
			}
		case 'k':
			if ascii.HasPrefixFold(rest, "ey") {
				return true
			}
		case 'c':
			if ascii.HasPrefixFold(rest, "red") || ascii.HasPrefixFold(rest, "ookie") {
				return true
			}
		case 'a':
			if ascii.HasPrefixFold(rest, "uth") {
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
		if i == len(name) || !ascii.IsAlnum(c) {
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
		boundary := (ascii.IsLower(p) && ascii.IsUpper(c)) ||
			(ascii.IsDigit(p) != ascii.IsDigit(c)) ||
			// "APIKey": the hump starts at K, the upper-case run before it is a word.
			(ascii.IsUpper(p) && ascii.IsUpper(c) && i+1 < len(name) && ascii.IsLower(name[i+1]))
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

// MentionsSecret reports whether a word of name other than the last is a
// secret word: CURL_AUTH_USER, KUBERNETES_SECRET_YAML.
func MentionsSecret(name string) bool {
	if !HasRoot(name) {
		return false
	}
	var segs [maxSegments]segment
	n := split(name, &segs)
	for k := 0; k < n; k++ {
		w := name[segs[k].a:segs[k].b]
		if ascii.EqualFold(w, "token") || ascii.EqualFold(w, "auth") || ascii.InFold(w, strongWords[:]) {
			return true
		}
	}
	return false
}

// ContainsAny reports whether s holds one of words (lower case), ignoring
// case.
func ContainsAny(s string, words []string) bool {
	for _, w := range words {
		if ascii.ContainsFold(s, w) {
			return true
		}
	}
	return false
}
