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
