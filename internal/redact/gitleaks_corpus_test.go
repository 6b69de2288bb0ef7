package redact

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The gitleaks corpus (../shared/corpora/gitleaks/corpus.json, see its
// PROVENANCE.md) holds the true and false positives of gitleaks' default
// rules, taken from gitleaks' own sources. It comes from another project,
// so the repository does not carry it: these tests read it when it is
// there and skip, saying so, when it is not.

type glCorpus struct {
	Rules []struct {
		ID      string `json:"id"`
		Samples []struct {
			Needle string `json:"needle"`
			TP     string `json:"tp"`
			Origin string `json:"origin"`
			Bare   bool   `json:"bare"`
		} `json:"samples"`
		FPs []struct {
			Text string `json:"text"`
		} `json:"fps"`
	} `json:"rules"`
}

// corporaDir is $LOGBOOK_CORPORA, else ../shared/corpora beside the
// repository's root.
func corporaDir() string {
	if d := os.Getenv("LOGBOOK_CORPORA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpora")
}

func loadGitleaksCorpus(tb testing.TB) *glCorpus {
	tb.Helper()
	path := filepath.Join(corporaDir(), "gitleaks", "corpus.json")
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Skipf("gitleaks corpus not available (%v): conformance part skipped", err)
	}
	var c glCorpus
	if err := json.Unmarshal(data, &c); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(c.Rules) < 200 {
		tb.Fatalf("%s: %d rules, want the whole default set", path, len(c.Rules))
	}
	return &c
}

// Placement puts a secret into clear text as an agent would send it.
type Placement struct {
	Name string
	// Put returns the clear text; ok is false when the placement does not
	// apply to this sample.
	Put func(needle, tp, rule string, bare bool) (string, bool)
}

// envName makes an environment variable name from a rule id: the form
// people give the variable that holds that vendor's key.
func envName(rule string) string {
	b := []byte(strings.ToUpper(rule))
	for i, c := range b {
		if !isAlnum(c) {
			b[i] = '_'
		}
	}
	if len(b) > 0 && isDigit(b[0]) {
		b = append([]byte("X_"), b...)
	}
	return string(b)
}

// shellWord quotes s for a shell when it holds bytes the shell would read
// as syntax, as anyone typing the command must.
func shellWord(s string) string {
	if !strings.ContainsAny(s, " \t\n'\"`$\\|&;()<>*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Placements are the places of issue 13's table where a secret reaches a
// step's clear text through String.
var Placements = []Placement{
	{"bare Bash argument", func(n, _, _ string, bare bool) (string, bool) {
		return "deploy-cli --region eu-west-1 " + shellWord(n) + " --verbose", bare
	}},
	{"heredoc config line", func(_, tp, _ string, _ bool) (string, bool) {
		return "cat > config/app.conf <<'EOF'\n" + tp + "\nEOF", true
	}},
	{"Grep pattern", func(n, _, _ string, bare bool) (string, bool) { return n, bare }},
	{"WebFetch URL ?q=", func(n, _, _ string, bare bool) (string, bool) {
		return "https://www.google.com/search?q=" + n + "&hl=en", bare
	}},
	{"export NAME=", func(n, _, rule string, _ bool) (string, bool) {
		return "export " + envName(rule) + "=" + shellWord(n) + " && ./run.sh", true
	}},
	{"URL ?token=", func(n, _, _ string, _ bool) (string, bool) {
		return "curl -s 'https://api.example.com/v1/items?limit=10&token=" + url.QueryEscape(n) + "'", true
	}},
	{"Authorization: Bearer", func(n, _, _ string, _ bool) (string, bool) {
		return `curl -H "Authorization: Bearer ` + n + `" https://api.example.com/v1/me`, true
	}},
	{"prompt", func(n, _, _ string, bare bool) (string, bool) {
		return "Use this for the staging deploy: " + n + "\nthen run the tests.", bare
	}},
	{"Write file_path", func(n, _, _ string, bare bool) (string, bool) {
		return "/home/dev/app/secrets/" + n + ".txt", bare
	}},
	{"gitleaks' own line", func(_, tp, _ string, _ bool) (string, bool) { return tp, true }},
}

// Survives reports whether redacted text still shows a secret: the whole
// of it, or 12 or more bytes in a row of its random part (windows made of
// one kind of character, such as "hooks.slack.com" or "-----BEGIN", are a
// vendor's fixed text, not the secret's).
func Survives(out, needle string) bool {
	if q := url.QueryEscape(needle); q != needle && survives(out, q) {
		return true
	}
	return survives(out, needle)
}

func survives(out, needle string) bool {
	if strings.Contains(out, needle) {
		return true
	}
	const w = 12
	for i := 0; i+w <= len(needle); i++ {
		win := needle[i : i+w]
		if randomLooking(win) && strings.Contains(out, win) {
			return true
		}
	}
	return false
}

func randomLooking(s string) bool {
	var up, lo, dg bool
	for i := 0; i < len(s); i++ {
		up = up || isUpper(s[i])
		lo = lo || isLower(s[i])
		dg = dg || isDigit(s[i])
	}
	n := 0
	for _, b := range []bool{up, lo, dg} {
		if b {
			n++
		}
	}
	return n >= 2
}

// TestGitleaksTruePositives plants every true positive of gitleaks' default
// rules at every placement and requires that none survives.
func TestGitleaksTruePositives(t *testing.T) {
	c := loadGitleaksCorpus(t)
	type tally struct{ planted, survived int }
	by := map[string]*tally{}
	total, survived := 0, 0
	rulesHit := map[string]bool{}
	for _, r := range c.Rules {
		for _, s := range r.Samples {
			for _, p := range Placements {
				in, ok := p.Put(s.Needle, s.TP, r.ID, s.Bare)
				if !ok {
					continue
				}
				if by[p.Name] == nil {
					by[p.Name] = &tally{}
				}
				by[p.Name].planted++
				total++
				out := String(in)
				if Survives(out, s.Needle) {
					by[p.Name].survived++
					survived++
					rulesHit[r.ID] = true
					t.Errorf("%s: %s survives (%s):\n in: %q\nout: %q", r.ID, s.Needle, p.Name, in, out)
				}
			}
		}
	}
	for _, p := range Placements {
		if tl := by[p.Name]; tl != nil {
			t.Logf("%-22s %4d / %4d survive", p.Name, tl.survived, tl.planted)
		}
	}
	t.Logf("gitleaks true positives: %d of %d placements survive, from %d rules", survived, total, len(rulesHit))
}

// fpLimit is issue 13's bar: of gitleaks' false positives that hold no
// secret-looking word, at most 15 % may be redacted.
const fpLimit = 0.15

// TestGitleaksFalsePositives measures over-redaction on gitleaks' own false
// positives. Those that hold a secret-looking word (key, token, secret,
// password...) may well be redacted by the name rules; the others must
// mostly come out unchanged.
func TestGitleaksFalsePositives(t *testing.T) {
	c := loadGitleaksCorpus(t)
	plain, changed, placeholders, phChanged := 0, 0, 0, 0
	for _, r := range c.Rules {
		for _, fp := range r.FPs {
			if hasRoot(fp.Text) {
				continue
			}
			out := String(fp.Text)
			if placeholderText(fp.Text) { // ghp_xxxx...: may go either way
				placeholders++
				if out != fp.Text {
					phChanged++
				}
				continue
			}
			plain++
			if out != fp.Text {
				changed++
				t.Logf("%s: changed:\n in: %q\nout: %q", r.ID, fp.Text, out)
			}
		}
	}
	rate := float64(changed) / float64(plain)
	t.Logf("gitleaks false positives without a secret-looking word: %d of %d redacted (%.1f%%); placeholders (ghp_xxxx...) apart: %d of %d redacted; all together %d of %d (%.1f%%)",
		changed, plain, 100*rate, phChanged, placeholders, changed+phChanged, plain+placeholders, 100*float64(changed+phChanged)/float64(plain+placeholders))
	if rate > fpLimit {
		t.Errorf("over-redaction %.1f%% > %.0f%%", 100*rate, 100*fpLimit)
	}
}

// placeholderText reports a documentation placeholder such as
// ghp_xxxxxxxx or glsa_XXXX_AAAA: one letter or digit makes at least half
// of its letters and digits.
func placeholderText(s string) bool {
	var n [256]int
	total, most := 0, 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; isAlnum(c) {
			n[c]++
			total++
			most = max(most, n[c])
		}
	}
	return total > 0 && 2*most >= total
}
