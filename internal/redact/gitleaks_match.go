package redact

import (
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// gitleaks' rules (gitleaks_rules.go) run after the scanner. A rule runs
// only when one of its keywords occurs in the text, ignoring case, as in
// gitleaks itself; its regular expression is compiled the first time that
// happens in the process, so a hook pays only for the few rules its text
// names (most commands name none).

// glRuleSet is a set of indexes into glRules.
type glRuleSet [(len(glRules) + 63) / 64]uint64

func (rs *glRuleSet) add(i uint16) { rs[i>>6] |= 1 << (i & 63) }

// glSelect marks the rules whose keywords occur in s and reports whether
// there was any.
func glSelect(s string, rs *glRuleSet) bool {
	found := false
	for i := 0; i+1 < len(s); i++ {
		if d := s[i+1]; glBigrams[s[i]][d>>6]>>(d&63)&1 == 0 {
			continue // no keyword starts with these two bytes: most of the text
		}
		list := glKeywords[lower(s[i])]
		c2 := lower(s[i+1])
		for k := range list {
			kw := &list[k]
			if kw.word[1] != c2 || !hasPrefixFold(s[i:], kw.word) {
				continue
			}
			for _, r := range kw.rules {
				rs.add(r)
			}
			found = true
		}
	}
	return found
}

// compiled holds every regular expression compiled so far, by source. The
// sources are the generated constants, so this is a cache, not state: two
// Redactors share it and neither can change what the other applies.
var compiled sync.Map // string -> *regexp.Regexp

func compile(src string) *regexp.Regexp {
	if re, ok := compiled.Load(src); ok {
		return re.(*regexp.Regexp)
	}
	// The generator checked that every source compiles (TestGitleaksRules too).
	re := regexp.MustCompile(src)
	compiled.Store(src, re)
	return re
}

// gitleaks adds a span for every secret a selected rule finds in s, and,
// when s holds percent-escapes (a secret in a URL query is often written
// escaped: ?q=ABSK%2Bx%2F...), in s with them decoded.
func (sc *scanner) gitleaks() {
	sc.glRun(sc.s, nil)
	if d, at := percentDecoded(sc.s); at != nil {
		sc.glRun(d, at)
	}
}

// glRun runs the selected rules over text; at maps a byte of text back to
// sc.s (nil: text is sc.s).
func (sc *scanner) glRun(text string, at []int) {
	var rs glRuleSet
	if !glSelect(text, &rs) {
		return
	}
	for w, bits := range rs {
		for bits != 0 {
			b := trailingZeros(bits)
			bits &^= 1 << b
			sc.glRule(&glRules[w*64+b], text, at)
		}
	}
}

// percentDecoded returns s with every %XX (and + for a blank) decoded, and for each byte of it
// (and its end) the offset in s it came from; at is nil when s has no
// escape.
func percentDecoded(s string) (string, []int) {
	k := strings.IndexByte(s, '%')
	for k >= 0 && !(k+2 < len(s) && isHexAny(s[k+1]) && isHexAny(s[k+2])) {
		n := strings.IndexByte(s[k+1:], '%')
		if n < 0 {
			return "", nil
		}
		k += 1 + n
	}
	if k < 0 {
		return "", nil
	}
	b := make([]byte, 0, len(s))
	at := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexAny(s[i+1]) && isHexAny(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			at = append(at, i)
			i += 2
			continue
		}
		c := s[i]
		if c == '+' { // a blank, in a form-encoded query (raw base64 is read in s itself)
			c = ' '
		}
		b = append(b, c)
		at = append(at, i)
	}
	at = append(at, len(s))
	return string(b), at
}

func isHexAny(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }

func unhex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

func (sc *scanner) glRule(r *glRule, s string, at []int) {
	for _, alts := range r.need {
		found := false
		for _, lit := range alts {
			if containsFold(s, lit) {
				found = true
				break
			}
		}
		if !found {
			return // cannot match: no need to compile it
		}
	}
	if r.assign > 0 && !sc.assigns(s, at, r.need[0], r.assign) {
		return
	}
	re := compile(r.re)
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		a, b := glSecret(r, m)
		if a < 0 || a >= b {
			continue
		}
		secret := s[a:b]
		oa, ob := a, b // in sc.s
		if at != nil {
			oa, ob = at[a], at[b]
		}
		if sc.covers(oa, ob) {
			continue // already replaced: no need to weigh it (or compile its allowlists)
		}
		if r.entropy > 0 && entropy(secret) <= r.entropy {
			continue
		}
		if r.namePrefix {
			m[0] = nameStart(s, m[0], 50)
		}
		if glAllowed(glGlobal[:], s, secret, m) || glAllowed(r.allow, s, secret, m) {
			continue
		}
		if b-a < minSecret { // a group that is a fragment (a repeated "xxxx-")
			oa, ob = m[0], m[1]
			if at != nil {
				oa, ob = at[m[0]], at[m[1]]
			}
		}
		sc.addWhole(oa, ob)
	}
}

// minSecret is the shortest group taken for a secret; a shorter one is a
// fragment of the match, which is replaced whole instead.
const minSecret = 12

// glSecret picks a match's secret as gitleaks does: the rule's secret
// group, else the first non-empty group, else the whole match.
func glSecret(r *glRule, m []int) (int, int) {
	if r.group > 0 {
		if 2*r.group+1 < len(m) {
			return m[2*r.group], m[2*r.group+1]
		}
		return -1, -1
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// glAllowed reports whether an allowlist excuses a finding.
func glAllowed(list []glAllow, s, secret string, m []int) bool {
	for i := range list {
		a := &list[i]
		target := secret
		switch a.target {
		case glTargetMatch:
			target = s[m[0]:m[1]]
		case glTargetLine:
			ls := strings.LastIndexByte(s[:m[0]], '\n') + 1
			le := strings.IndexByte(s[m[1]:], '\n')
			if le < 0 {
				le = len(s)
			} else {
				le += m[1]
			}
			target = s[ls:le]
		}
		reOK, stopOK := false, false
		for _, src := range a.res {
			if compile(src).MatchString(target) {
				reOK = true
				break
			}
		}
		if len(a.stop) > 0 {
			for _, w := range a.stop {
				if containsFold(secret, w) {
					stopOK = true
					break
				}
			}
		}
		if a.and {
			if (len(a.res) == 0 || reOK) && (len(a.stop) == 0 || stopOK) {
				return true
			}
		} else if reOK || stopOK {
			return true
		}
	}
	return false
}

// entropy is gitleaks' Shannon entropy: over the runes of s, with the
// frequencies taken per byte of length, as gitleaks computes them.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var ascii [128]int
	var other map[rune]int
	for _, c := range s {
		if c < utf8.RuneSelf {
			ascii[c]++
			continue
		}
		if other == nil {
			other = map[rune]int{}
		}
		other[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	add := func(n int) {
		if n > 0 {
			f := float64(n) * inv
			e -= f * math.Log2(f)
		}
	}
	for _, n := range ascii {
		add(n)
	}
	for _, n := range other {
		add(n)
	}
	return e
}

// addWhole adds the span of a secret widened to the whole value around it
// (the run of token bytes it sits in), so that a secret is never replaced
// in part: a rule whose group is a fragment of a longer key would
// otherwise leave the rest of it in clear.
func (sc *scanner) addWhole(a, b int) {
	s := sc.s
	for a > 0 && isValueByte(s[a-1]) && s[a-1] != '=' && s[a-1] != '/' {
		a--
	}
	for b < len(s) && isValueByte(s[b]) {
		b++
	}
	for b > a && (s[b-1] == '.' || s[b-1] == '/') { // a sentence's full stop, a path's slash
		b--
	}
	sc.add(a, b)
}

// isValueByte is a byte of a token or base64 value, or of its
// percent-escaped form.
func isValueByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~' || c == '%'
}

// covers reports whether one span already found holds [a, b).
func (sc *scanner) covers(a, b int) bool {
	for _, sp := range sc.spans {
		if sp.start <= a && b <= sp.end {
			return true
		}
	}
	return false
}

// assigns reports whether a generic rule could find a secret the
// scanner has not already replaced: whether one of names (lower case) is
// followed, as those rules require, by at most 20 more name bytes, at
// most 3 blanks or quotes, an assignment operator (= > : :: := => ?= ||
// ,), at most 5 quotes, blanks or '=', and a value as long as the rule's
// shortest secret that no span holds yet. It is a necessary condition only, and far
// cheaper than compiling and running the rule: "gh auth status",
// "curl https://api.github.com" and "GITHUB_TOKEN=<already replaced>"
// fail it. at maps text to sc.s as in glRule.
func (sc *scanner) assigns(text string, at []int, names []string, minLen int) bool {
	for _, name := range names {
		for i := 0; i+len(name) <= len(text); i++ {
			if lower(text[i]) != name[0] || !hasPrefixFold(text[i:], name) {
				continue
			}
			j := i + len(name)
			for k := 0; k <= 20 && j+k <= len(text); k++ {
				if sc.valueAfterOperator(text, at, j+k, minLen) {
					return true
				}
				if j+k == len(text) {
					break
				}
				if c := text[j+k]; !(isAlnum(c) || c == '_' || c == '.' || c == '-' || c == ' ' || c == '\t') {
					break
				}
			}
		}
	}
	return false
}

// valueAfterOperator: at most 3 blanks or quotes from j, an operator,
// then a value not yet replaced (see assigns).
func (sc *scanner) valueAfterOperator(text string, at []int, j, minLen int) bool {
	for k := 0; k <= 3 && j < len(text); k++ {
		switch text[j] {
		case '=', '>', ':', '|', '?', ',':
			// Every operator is at most 4 bytes of these; each way of
			// reading it leaves the value at one of the next positions.
			for op := 1; op <= 4 && j+op <= len(text); op++ {
				if !strings.ContainsRune("=>:|?,", rune(text[j+op-1])) {
					break
				}
				if sc.uncoveredValue(text, at, j+op, minLen) {
					return true
				}
			}
			return false
		case ' ', '\t', '\n', '\r', '\v', '\f', '\'', '"':
			j++
			continue
		}
		return false
	}
	return false
}

// uncoveredValue: after at most 5 of ` ' " blank =, a run of at least
// minLen bytes other than blanks, quotes and ';' (the generator checked
// that the rule's secret holds none) that no span holds whole.
func (sc *scanner) uncoveredValue(text string, at []int, v, minLen int) bool {
	for k := 0; k <= 5 && v <= len(text); k++ {
		e := v
		for e < len(text) && !isSpace(text[e]) && text[e] != '\'' && text[e] != '"' && text[e] != '`' && text[e] != ';' {
			e++
		}
		if e-v >= minLen {
			oa, ob := v, e
			if at != nil {
				oa, ob = at[v], at[e]
			}
			if !sc.covers(oa, ob) {
				return true
			}
		}
		if v == len(text) {
			break
		}
		switch text[v] {
		case '`', '\'', '"', '=', ' ', '\t', '\n', '\r', '\v', '\f':
			v++
			continue
		}
		break
	}
	return false
}

// nameStart is where gitleaks' match would start: up to max bytes of
// [\w.-] before i.
func nameStart(s string, i, max int) int {
	for k := 0; k < max && i > 0; k++ {
		if c := s[i-1]; !(isAlnum(c) || c == '_' || c == '.' || c == '-') {
			break
		}
		i--
	}
	return i
}
