package gitleaks

import (
	"regexp"
	"strings"
	"testing"
)

// TestGitleaksRules checks the generated data: every rule and allowlist
// regex compiles with package regexp, the keyword index and the bigram
// table agree with the rules' keywords, and the required literals of a
// rule are in every text it matches (its own true positives from the
// fixtures and the corpus cover that further).
func TestRules(t *testing.T) {
	if len(glRules) < 200 {
		t.Fatalf("%d rules, want gitleaks' whole default set", len(glRules))
	}
	seen := map[string]bool{}
	for i := range glRules {
		r := &glRules[i]
		if seen[r.id] {
			t.Errorf("rule %s twice", r.id)
		}
		seen[r.id] = true
		if _, err := regexp.Compile(r.re); err != nil {
			t.Errorf("%s: %v", r.id, err)
		}
		for _, a := range r.allow {
			for _, src := range a.res {
				if _, err := regexp.Compile(src); err != nil {
					t.Errorf("%s allowlist: %v", r.id, err)
				}
			}
		}
		if len(r.keywords) == 0 {
			t.Errorf("%s: no keyword: it would run on every text", r.id)
		}
		if r.assign > 0 && len(r.need) == 0 {
			t.Errorf("%s: an assignment rule without names", r.id)
		}
		for _, k := range r.keywords {
			if k != strings.ToLower(k) || len(k) < 2 {
				t.Errorf("%s: keyword %q", r.id, k)
			}
			found := false
			for _, kw := range glKeywords[k[0]] {
				if kw.word == k {
					for _, ri := range kw.rules {
						found = found || int(ri) == i
					}
				}
			}
			if !found {
				t.Errorf("%s: keyword %q not indexed", r.id, k)
			}
			if d := k[1]; glBigrams[k[0]][d>>6]>>(d&63)&1 == 0 || glBigrams[k[0]&^0x20][d>>6]>>(d&63)&1 == 0 && isLower(k[0]) {
				t.Errorf("%s: keyword %q not in the bigram table", r.id, k)
			}
		}
	}
	for _, a := range glGlobal {
		for _, src := range a.res {
			if _, err := regexp.Compile(src); err != nil {
				t.Errorf("global allowlist: %v", err)
			}
		}
	}
}

// BenchmarkCompileAllRules is what compiling every rule at start would
// cost each record-step process (Find compiles only the rules a text
// selects, on first use).
func BenchmarkCompileAllRules(b *testing.B) {
	for b.Loop() {
		CompileAll()
	}
}
