package redact

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/gitleaks"
	"github.com/logbook-project/logbook/internal/redact/names"
	"github.com/logbook-project/logbook/internal/redact/scan"
	"github.com/logbook-project/logbook/internal/redact/values"
	"github.com/logbook-project/logbook/internal/redact/web"
)

// Mask replaces every secret.
const Mask = values.Mask

// ErrBadPattern is wrapped by the errors New returns.
var ErrBadPattern = errors.New("redact: bad pattern")

// maxPasses bounds the re-scans that make String idempotent (see String).
const maxPasses = 4

// There is no process-wide redaction setting: a project's patterns live
// in the *Redactor that LoadConfig returns, which the caller hands to
// whatever builds clear text (hookevent, wrap, seal). The package-level
// functions apply the built-in rules only.

// String returns s with every secret replaced by Mask ("[REDACTED]");
// non-secret text is byte-identical. For example
//
//	String("export GITHUB_TOKEN=ghp_xxx && gh pr list")
//	  == "export GITHUB_TOKEN=[REDACTED] && gh pr list"
//	String("psql postgres://app:hunter2@db:5432/app")
//	  == "psql postgres://app:[REDACTED]@db:5432/app"
//
// Text with no secret is returned as is, without allocating. Invalid UTF-8
// is accepted; the output is valid UTF-8 whenever the input is. String never
// fails and is safe for concurrent use.
func String(s string) string { return (*Redactor)(nil).String(s) }

// SecretKey reports whether an object key names a secret, so that its whole
// value must be replaced: "password", "Authorization", "X-Api-Key",
// "github_token", "clientSecret", "AWS_SECRET_ACCESS_KEY" are secret;
// "author", "keyboard", "input_tokens", "password_file", "public_key",
// "sort_keys" and a bare "key" are not. Matching ignores case and works on
// the words of the name (split at -, _, ., camelCase and digits), so a
// secret word must be a whole word, normally the last one.
func SecretKey(name string) bool { return (*Redactor)(nil).SecretKey(name) }

// Pattern is a project-specific rule added to the built-in ones. Set
// exactly one of Regexp and Key.
type Pattern struct {
	// Name labels the pattern in error messages; it is optional.
	Name string
	// Regexp is an RE2 expression (package regexp syntax). Its first
	// capturing group, when it has one, or else its whole match is
	// replaced: `acme_[0-9a-f]{32}` or `(?i)x-acme-auth:\s*(\S+)`.
	Regexp string
	// Key is one more secret word, letters and digits only, matched like
	// the built-in ones (case-insensitively, as the last word of a name):
	// Key "seed" makes ACME_SEED=..., --seed x and {"seed": ...} secret.
	Key string
}

// Redactor applies the built-in rules plus project patterns. The zero value
// and a nil *Redactor apply the built-in rules only. A Redactor is
// immutable and safe for concurrent use.
type Redactor struct {
	res  []*regexp.Regexp
	keys []string // lower case
}

// New returns a Redactor that also applies extra. Regular expressions are
// compiled here, once, not on each call. It fails, with an error wrapping
// ErrBadPattern, when a pattern sets both or neither of Regexp and Key,
// when Key is not letters and digits, when Regexp does not compile, matches
// the empty string, or matches inside Mask (which would make String grow
// its own output on every call).
func New(extra []Pattern) (*Redactor, error) {
	r := &Redactor{}
	for i, p := range extra {
		label := fmt.Sprintf("pattern %d", i)
		if p.Name != "" {
			label = fmt.Sprintf("pattern %d (%s)", i, p.Name)
		}
		switch {
		case (p.Regexp == "") == (p.Key == ""):
			return nil, fmt.Errorf("%w: %s: set exactly one of Regexp and Key", ErrBadPattern, label)
		case p.Key != "":
			if !isWord(p.Key) {
				return nil, fmt.Errorf("%w: %s: key %q must be letters and digits only", ErrBadPattern, label, p.Key)
			}
			r.keys = append(r.keys, strings.ToLower(p.Key))
		default:
			re, err := regexp.Compile(p.Regexp)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrBadPattern, label, err)
			}
			if re.MatchString("") {
				return nil, fmt.Errorf("%w: %s: %q matches the empty string", ErrBadPattern, label, p.Regexp)
			}
			for _, m := range re.FindAllStringSubmatchIndex(Mask, -1) {
				if a, b := matchSpan(re, m); a >= 0 && (a > 0 || b < len(Mask)) {
					return nil, fmt.Errorf("%w: %s: %q matches inside %s", ErrBadPattern, label, p.Regexp, Mask)
				}
			}
			r.res = append(r.res, re)
		}
	}
	return r, nil
}

// String is the package-level String with r's extra patterns.
//
// Replacing a secret can change the context of the text around it, so the
// rules are applied again until nothing changes (at most maxPasses times,
// and only when the first pass replaced something): this is what makes
// String(String(s)) == String(s).
func (r *Redactor) String(s string) string {
	out := r.pass(s)
	for i := 1; i < maxPasses && out != s; i++ {
		s, out = out, r.pass(out)
	}
	return out
}

// SecretKey is the package-level SecretKey with r's extra keys.
func (r *Redactor) SecretKey(name string) bool {
	return names.Classify(name, names.InKey, r.extraKeys()) == names.StrongSecret
}

// pass applies every rule once.
func (r *Redactor) pass(s string) string { return replace(s, r.spans(s, true)) }

// spans are the secrets every rule finds in s; with urls, also those in
// the escaped parts of its URLs, read decoded (web.Escaped) and mapped
// back to the bytes that carry them.
func (r *Redactor) spans(s string, urls bool) []scan.Span {
	sc := scan.New(s, r.extraKeys())
	if r.hasRegexps() || mayHoldSecret(s) || names.ContainsAny(s, r.extraKeys()) {
		sc.Scan()
	}
	gitleaks.Find(s, sc.CoveredTo, sc.Add)
	if r != nil {
		for _, re := range r.res {
			for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
				if a, b := matchSpan(re, m); a >= 0 {
					sc.Add(a, b)
				}
			}
		}
	}
	if urls {
		web.Escaped(s, func(dec string, at []int) {
			for _, sp := range r.spans(dec, false) {
				sc.Add(at[sp.Start], at[sp.End])
			}
		})
	}
	return sc.Spans()
}

// matchSpan picks the first capturing group of a match, or the whole match.
func matchSpan(re *regexp.Regexp, m []int) (int, int) {
	if re.NumSubexp() > 0 {
		return m[2], m[3]
	}
	return m[0], m[1]
}

func byStart(a, b scan.Span) int { return cmp.Compare(a.Start, b.Start) }

// replace writes s with each span replaced by Mask; overlapping and
// touching spans become one, so "[REDACTED][REDACTED]" never appears.
func replace(s string, spans []scan.Span) string {
	if len(spans) == 0 {
		return s
	}
	// Not an insertion sort: the scanner's spans and each gitleaks rule's
	// come in runs of their own, and a payload of many secrets made it
	// quadratic.
	if !slices.IsSortedFunc(spans, byStart) {
		slices.SortFunc(spans, byStart)
	}
	var b strings.Builder
	b.Grow(len(s) + len(spans)*len(Mask))
	last := 0
	cur := spans[0]
	for _, sp := range spans[1:] {
		if sp.Start <= cur.End {
			cur.End = max(cur.End, sp.End)
			continue
		}
		b.WriteString(s[last:cur.Start])
		b.WriteString(Mask)
		last, cur = cur.End, sp
	}
	b.WriteString(s[last:cur.Start])
	b.WriteString(Mask)
	b.WriteString(s[cur.End:])
	return b.String()
}

func (r *Redactor) hasRegexps() bool { return r != nil && len(r.res) > 0 }

func (r *Redactor) extraKeys() []string {
	if r == nil {
		return nil
	}
	return r.keys
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !ascii.IsAlnum(s[i]) {
			return false
		}
	}
	return s != ""
}

// Clip bounds clear text s to max bytes on a UTF-8 boundary, marking the
// cut with "…". Call it after String, never before: a secret cut short
// of its pattern would no longer be recognised.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
