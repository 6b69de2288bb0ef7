package main

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// The redactor compiles a rule only when the text can match it. gitleaks'
// keywords are one test (any keyword selects the rule); need is a
// stricter one, read from the regex itself: the literals every match must
// contain, as a conjunction of alternatives ("gocardless" and "live_"),
// all lower case, each at least minNeed bytes (shorter ones are in
// nearly every text and would only cost time).

const (
	minNeed  = 3
	maxAlts  = 32 // the largest set of alternatives kept
	maxLitSz = 64
)

// need returns the required literals of re (RE2 syntax).
func need(src string) [][]string {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	var out [][]string
	for _, alts := range needOf(re.Simplify()) {
		if ok(alts) {
			out = append(out, alts)
		}
	}
	return out
}

func ok(alts []string) bool {
	if len(alts) == 0 || len(alts) > maxAlts {
		return false
	}
	for _, a := range alts {
		if len(a) < minNeed {
			return false
		}
	}
	return true
}

// exact returns the finite set of strings re matches, lower case, when it
// is small; ok is false otherwise.
func exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var set []string
		seen := map[string]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > 4 {
				return nil, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				l := string(unicode.ToLower(r))
				if !seen[l] {
					seen[l] = true
					set = append(set, l)
				}
			}
		}
		return set, len(set) > 0 && len(set) <= 4
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpConcat:
		set := []string{""}
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok {
				return nil, false
			}
			set = cross(set, s)
			if set == nil {
				return nil, false
			}
		}
		return set, true
	case syntax.OpAlternate:
		var set []string
		for _, sub := range re.Sub {
			s, ok := exact(sub)
			if !ok {
				return nil, false
			}
			set = append(set, s...)
		}
		return set, len(set) <= maxAlts
	}
	return nil, false
}

func cross(a, b []string) []string {
	if len(a)*len(b) > maxAlts {
		return nil
	}
	var out []string
	for _, x := range a {
		for _, y := range b {
			if len(x)+len(y) > maxLitSz {
				return nil
			}
			out = append(out, x+y)
		}
	}
	return out
}

// needOf returns what every match of re must contain.
func needOf(re *syntax.Regexp) [][]string {
	if set, ok := exact(re); ok {
		return [][]string{set}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return needOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needOf(re.Sub[0])
		}
	case syntax.OpConcat:
		var out [][]string
		run := []string{""} // the exact strings of the current run of children
		flush := func() {
			if len(run) > 0 && run[0] != "" || len(run) > 1 {
				out = append(out, run)
			}
			run = []string{""}
		}
		for _, sub := range re.Sub {
			if s, ok := exact(sub); ok {
				if c := cross(run, s); c != nil {
					run = c
					continue
				}
				flush()
				run = s
				continue
			}
			flush()
			out = append(out, needOf(sub)...)
		}
		flush()
		return out
	case syntax.OpAlternate:
		// One requirement from each alternative: the one whose shortest
		// literal is longest.
		var alts []string
		for _, sub := range re.Sub {
			var best []string
			bestMin := 0
			for _, n := range needOf(sub) {
				if !ok(n) {
					continue
				}
				m := len(n[0])
				for _, l := range n {
					m = min(m, len(l))
				}
				if m > bestMin {
					best, bestMin = n, m
				}
			}
			if best == nil {
				return nil
			}
			alts = append(alts, best...)
		}
		return [][]string{alts}
	}
	return nil
}

// topAlternate reports a regex whose top level is an alternation.
func topAlternate(src string) bool {
	re, err := syntax.Parse(src, syntax.Perl)
	return err != nil || re.Simplify().Op == syntax.OpAlternate
}

// secretShape returns the shortest secret a rule's secret group can match
// (group 0: the first capturing group) and whether every byte it can
// match is outside blanks, quotes and ';' (the redactor's assignment test
// relies on that; see assigns in the redact package).
func secretShape(src string, group int) (minLen int, clean bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return 0, false
	}
	re = re.Simplify()
	if group == 0 {
		group = 1
	}
	g := findCapture(re, group)
	if g == nil {
		return 0, false
	}
	return minLength(g), cleanClasses(g)
}

func findCapture(re *syntax.Regexp, n int) *syntax.Regexp {
	if re.Op == syntax.OpCapture && re.Cap == n {
		return re
	}
	for _, sub := range re.Sub {
		if g := findCapture(sub, n); g != nil {
			return g
		}
	}
	return nil
}

func minLength(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture, syntax.OpPlus:
		return minLength(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min * minLength(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n += minLength(sub)
		}
		return n
	case syntax.OpAlternate:
		n := -1
		for _, sub := range re.Sub {
			if m := minLength(sub); n < 0 || m < n {
				n = m
			}
		}
		return max(n, 0)
	}
	return 0
}

// cleanClasses: no byte the expression can match is a blank, a quote, a
// backquote or ';'.
func cleanClasses(re *syntax.Regexp) bool {
	bad := func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\'' || r == '"' || r == '`' || r == ';'
	}
	switch re.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if bad(r) || (re.Flags&syntax.FoldCase != 0 && bad(r)) {
				return false
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for _, r := range []rune{' ', '\t', '\n', '\r', '\v', '\f', '\'', '"', '`', ';'} {
				if re.Rune[i] <= r && r <= re.Rune[i+1] {
					return false
				}
			}
		}
	}
	for _, sub := range re.Sub {
		if !cleanClasses(sub) {
			return false
		}
	}
	return true
}
