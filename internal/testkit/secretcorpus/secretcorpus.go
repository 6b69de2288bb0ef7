// Package secretcorpus reads the true and false positives of gitleaks'
// default rules (the shared corpus corpora/gitleaks/corpus.json, see its
// PROVENANCE.md) and plants them where an agent's clear text carries
// secrets, for the redaction tests of internal/redact and record-step. It
// also says whether a secret survives in redacted text.
//
// The corpus comes from another project: the repository does not carry
// it. Load skips the calling test, in one line, when it is absent.
//
// Tests only: nothing under cmd/ imports it.
package secretcorpus

import (
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// Corpus is corpus.json.
type Corpus struct {
	Rules []Rule `json:"rules"`
}

// Rule is one gitleaks rule with its samples.
type Rule struct {
	ID      string   `json:"id"`
	Samples []Sample `json:"samples"`
	FPs     []struct {
		Text string `json:"text"`
	} `json:"fps"`
}

// Sample is one true positive: the secret (Needle), a line gitleaks finds
// it in (TP), and whether the rule finds it with only blanks around (Bare).
type Sample struct {
	Needle string `json:"needle"`
	TP     string `json:"tp"`
	Origin string `json:"origin"`
	Bare   bool   `json:"bare"`
}

// Load reads the corpus, or skips the test when it is absent.
func Load(t testing.TB) *Corpus {
	t.Helper()
	path := corpora.Require(t, "corpora/gitleaks/corpus.json", "gitleaks true and false positives")
	return read(t, path)
}

// Optional reads the corpus when it is there (for fuzz seeds); nil when not.
func Optional(t testing.TB) *Corpus {
	t.Helper()
	path, ok := corpora.Optional(t, "corpora/gitleaks/corpus.json", "gitleaks samples as fuzz seeds")
	if !ok {
		return nil
	}
	return read(t, path)
}

func read(t testing.TB, path string) *Corpus {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c Corpus
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(c.Rules) < 200 {
		t.Fatalf("%s: %d rules, want gitleaks' whole default set", path, len(c.Rules))
	}
	return &c
}

// Count is the number of samples.
func (c *Corpus) Count() (samples, bare int) {
	for _, r := range c.Rules {
		for _, s := range r.Samples {
			samples++
			if s.Bare {
				bare++
			}
		}
	}
	return samples, bare
}

// EnvName makes an environment variable name from a rule id, the name
// people give the variable holding that vendor's key: ONEPASSWORD_... for
// 1password-secret-key is X_1PASSWORD_SECRET_KEY.
func EnvName(rule string) string {
	b := []byte(strings.ToUpper(rule))
	for i, c := range b {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	if len(b) > 0 && '0' <= b[0] && b[0] <= '9' {
		b = append([]byte("X_"), b...)
	}
	return string(b)
}

// ShellWord quotes s for a shell when it holds bytes the shell would read
// as syntax, as anyone typing the command must.
func ShellWord(s string) string {
	if !strings.ContainsAny(s, " \t\n'\"`$\\|&;()<>*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Placement puts a secret where an agent's clear text carries it.
type Placement struct {
	Name string
	// Bare placements give the secret no name or context: only samples
	// that gitleaks itself finds with blanks around are planted there
	// (a UUID alone is nobody's secret).
	Bare bool
	Put  func(s Sample, rule string) string
}

// Applies reports whether the placement takes this sample.
func (p Placement) Applies(s Sample) bool { return s.Bare || !p.Bare }

// Text placements are the clear strings of issue 13's table.
var (
	BashArg = Placement{"bare Bash argument", true, func(s Sample, _ string) string {
		return "deploy-cli --region eu-west-1 " + ShellWord(s.Needle) + " --verbose"
	}}
	Heredoc = Placement{"heredoc config line", false, func(s Sample, _ string) string {
		return "cat > config/app.conf <<'EOF'\n" + s.TP + "\nEOF"
	}}
	GrepPattern = Placement{"Grep pattern", true, func(s Sample, _ string) string { return s.Needle }}
	SearchURL   = Placement{"WebFetch URL ?q=", true, func(s Sample, _ string) string {
		return "https://www.google.com/search?q=" + url.QueryEscape(s.Needle) + "&hl=en"
	}}
	SearchURLRaw = Placement{"WebFetch URL ?q= unescaped", true, func(s Sample, _ string) string {
		return "https://www.google.com/search?q=" + s.Needle + "&hl=en"
	}}
	Export = Placement{"export NAME=", false, func(s Sample, rule string) string {
		return "export " + EnvName(rule) + "=" + ShellWord(s.Needle) + " && ./run.sh"
	}}
	TokenURL = Placement{"URL ?token=", false, func(s Sample, _ string) string {
		return "curl -s 'https://api.example.com/v1/items?limit=10&token=" + url.QueryEscape(s.Needle) + "'"
	}}
	Bearer = Placement{"Authorization: Bearer", false, func(s Sample, _ string) string {
		return `curl -H "Authorization: Bearer ` + s.Needle + `" https://api.example.com/v1/me`
	}}
	Prompt = Placement{"prompt", true, func(s Sample, _ string) string {
		return "Use this for the staging deploy: " + s.Needle + "\nthen run the tests."
	}}
	FilePath = Placement{"Write file_path", true, func(s Sample, _ string) string {
		return "/home/dev/app/secrets/" + s.Needle + ".txt"
	}}
	OwnLine = Placement{"gitleaks' own line", false, func(s Sample, _ string) string { return s.TP }}

	// A URL carries its search text escaped: as a browser's or a
	// harness's fetch writes it (encodeURIComponent: %20, %3D, %2B), as a
	// form does (+ for a space), or with every byte but letters and
	// digits escaped; in the query, the fragment or a path segment; the
	// secret alone, in a sentence, or gitleaks' whole line.
	SearchURLJS = Placement{"URL ?q= escaped as JS does", true, func(s Sample, _ string) string {
		return "https://www.google.com/search?q=" + URIComponent("what is "+s.Needle) + "&hl=en"
	}}
	SearchURLPlus = Placement{"URL ?q= with + for spaces", true, func(s Sample, _ string) string {
		return "https://duckduckgo.com/html/?q=" + url.QueryEscape("what is "+s.Needle)
	}}
	SearchURLAll = Placement{"URL ?q= every byte escaped", true, func(s Sample, _ string) string {
		return "https://www.bing.com/search?q=" + EscapeAll(s.Needle) + "&form=QBLH"
	}}
	FragmentURL = Placement{"URL #fragment escaped", true, func(s Sample, _ string) string {
		return "https://app.example.com/#/search?q=" + URIComponent(s.Needle) + "&page=2"
	}}
	PathURL = Placement{"URL path segment escaped", true, func(s Sample, _ string) string {
		return "https://api.example.com/v1/keys/" + EscapeAll(s.Needle) + "/rotate"
	}}
	LineURLJS = Placement{"URL ?q= gitleaks' line, JS", false, func(s Sample, _ string) string {
		return "https://www.google.com/search?q=" + URIComponent(s.TP) + "&hl=en"
	}}
	LineURLPlus = Placement{"URL ?q= gitleaks' line, +", false, func(s Sample, _ string) string {
		return "https://duckduckgo.com/html/?q=" + url.QueryEscape(s.TP)
	}}
)

// URLs are the placements of a secret inside a URL.
var URLs = []Placement{SearchURL, SearchURLRaw, SearchURLJS, SearchURLPlus, SearchURLAll, FragmentURL, PathURL, LineURLJS, LineURLPlus}

// Texts are all the text placements.
var Texts = append([]Placement{BashArg, Heredoc, GrepPattern, Export, TokenURL, Bearer, Prompt, FilePath, OwnLine}, URLs...)

// URIComponent escapes s as JavaScript's encodeURIComponent does (what a
// harness written in it puts in a URL): all but letters, digits and
// -_.!~*'().
func URIComponent(s string) string {
	return escape(s, func(c byte) bool { return strings.IndexByte("-_.!~*'()", c) >= 0 })
}

// EscapeAll escapes every byte but letters and digits.
func EscapeAll(s string) string { return escape(s, func(byte) bool { return false }) }

func escape(s string, keep func(byte) bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || keep(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// Survives reports whether text still shows a secret: the whole of it (as
// planted or URL-escaped), or 12 or more bytes in a row of its random part.
// Windows of one kind of character only ("hooks.slack.com", "-----BEGIN",
// "xxxxxxxxxxxx") are a vendor's fixed text, not the secret's.
func Survives(text, needle string) bool {
	for _, f := range forms(needle) {
		if survives(text, f) {
			return true
		}
	}
	return false
}

// Window is how many bytes of a secret in a row count as a leak.
const Window = 12

func survives(text, needle string) bool {
	if strings.Contains(text, needle) {
		return true
	}
	for i := 0; i+Window <= len(needle); i++ {
		if w := needle[i : i+Window]; randomLooking(w) && strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// randomLooking: at least two of upper case, lower case and digits, not
// counting %XX escapes (an escaped form's "https%3A%2F%2F" is every URL's).
func randomLooking(s string) bool {
	var up, lo, dg int
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			i += 2
			continue
		}
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
			up = 1
		case 'a' <= c && c <= 'z':
			lo = 1
		case '0' <= c && c <= '9':
			dg = 1
		}
	}
	return up+lo+dg >= 2
}

// Placeholder reports a documentation placeholder such as ghp_xxxxxxxx or
// glsa_XXXX_AAAA: one letter or digit makes at least half of its letters
// and digits. Issue 13 lets these go either way.
func Placeholder(s string) bool {
	var n [256]int
	total, most := 0, 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			n[c]++
			total++
			most = max(most, n[c])
		}
	}
	return total > 0 && 2*most >= total
}

// Finder looks for many secrets in large texts at once: every form of
// each secret Survives looks for, indexed by its 12-byte windows, so one
// pass over a record finds them all.
type Finder struct {
	windows map[string]int // a random-looking window -> secret
	short   map[string]int // forms shorter than Window -> secret
	secrets []string
}

// NewFinder indexes secrets.
func NewFinder(secrets []string) *Finder {
	f := &Finder{windows: map[string]int{}, short: map[string]int{}, secrets: secrets}
	for i, s := range secrets {
		for _, form := range forms(s) {
			if len(form) < Window {
				f.short[form] = i
				continue
			}
			for k := 0; k+Window <= len(form); k++ {
				if w := form[k : k+Window]; randomLooking(w) {
					f.windows[w] = i
				}
			}
			if _, ok := f.windows[form[:Window]]; !ok { // a whole secret of one kind of byte
				f.short[form] = i
			}
		}
	}
	return f
}

// forms are the ways a secret can be written: as is, URL-escaped (as Go,
// JavaScript and a path escape it, and every byte), JSON-escaped.
func forms(s string) []string {
	out := []string{s}
	for _, f := range []string{url.QueryEscape(s), URIComponent(s), url.PathEscape(s), EscapeAll(s)} {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if j, _ := json.Marshal(s); string(j[1:len(j)-1]) != s {
		out = append(out, string(j[1:len(j)-1]))
	}
	return out
}

// Find returns the indexes of the secrets that survive in text.
func (f *Finder) Find(text string) []int {
	found := map[int]bool{}
	for k := 0; k+Window <= len(text); k++ {
		if i, ok := f.windows[text[k:k+Window]]; ok {
			found[i] = true
		}
	}
	for form, i := range f.short {
		if !found[i] && strings.Contains(text, form) {
			found[i] = true
		}
	}
	var out []int
	for i := range found {
		out = append(out, i)
	}
	return out
}
