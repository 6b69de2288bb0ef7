package gitleaks

import (
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// gitleaks' rules (rules.go) run after redact's own scanner. A rule runs
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

// compiles counts the regular expressions compiled so far: a process's
// first event pays for each, so the tests hold it (not a time) down.
var compiles atomic.Int64

func compile(src string) *regexp.Regexp {
	if re, ok := compiled.Load(src); ok {
		return re.(*regexp.Regexp)
	}
	// The generator checked that every source compiles (TestRules too).
	re := regexp.MustCompile(src)
	if _, loaded := compiled.LoadOrStore(src, re); !loaded {
		compiles.Add(1)
	}
	return re
}

// Compiles is how many of the rules' regular expressions this process
// has compiled so far.
func Compiles() int { return int(compiles.Load()) }

// finder is one run of the rules over one text.
type finder struct {
	s         string
	coveredTo func(i int) int // see Find
	add       func(a, b int)  // reports a secret
}

// Find calls add with the span of every secret the rules find in s,
// widened to the whole value around it, except a secret already
// replaced. coveredTo(i) tells which: the furthest end of the replaced
// text that holds byte i of s, or -1 when none does (nil: nothing is
// replaced yet). It is also used to skip work: a rule whose every
// possible finding is replaced already is not compiled.
func Find(s string, coveredTo func(i int) int, add func(a, b int)) {
	if coveredTo == nil {
		coveredTo = func(int) int { return -1 }
	}
	f := finder{s: s, coveredTo: coveredTo, add: add}
	f.glRun(s, nil)
	if d, at := percentDecoded(s); at != nil {
		f.glRun(d, at)
	}
}

// glRun runs the selected rules over text; at maps a byte of text back to
// f.s (nil: text is f.s).
func (f *finder) glRun(text string, at []int) {
	var rs glRuleSet
	if !glSelect(text, &rs) {
		return
	}
	for w, bits := range rs {
		for bits != 0 {
			b := trailingZeros(bits)
			bits &^= 1 << b
			f.glRule(&glRules[w*64+b], text, at)
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

func (f *finder) glRule(r *glRule, s string, at []int) {
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
	if r.assign > 0 && !f.assigns(s, at, r.need[0], r.assign) {
		return
	}
	re := compile(r.re)
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		a, b := glSecret(r, m)
		if a < 0 || a >= b {
			continue
		}
		secret := s[a:b]
		oa, ob := a, b // in f.s
		if at != nil {
			oa, ob = at[a], at[b]
		}
		if f.covers(oa, ob) {
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
		f.addWhole(oa, ob)
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

// addWhole reports the span of a secret widened to the whole value
// around it (the run of token bytes it sits in), so that a secret is
// never replaced in part: a rule whose group is a fragment of a longer key
// would otherwise leave the rest of it in clear.
func (f *finder) addWhole(a, b int) {
	s := f.s
	for a > 0 && isValueByte(s[a-1]) && s[a-1] != '=' && s[a-1] != '/' {
		a--
	}
	for b < len(s) && isValueByte(s[b]) {
		b++
	}
	for b > a && (s[b-1] == '.' || s[b-1] == '/') { // a sentence's full stop, a path's slash
		b--
	}
	if a < b {
		f.add(a, b)
	}
}

// isValueByte is a byte of a token or base64 value, or of its
// percent-escaped form.
func isValueByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~' || c == '%'
}

// covers reports whether [a, b) of f.s is already replaced.
func (f *finder) covers(a, b int) bool { return a < len(f.s) && f.coveredTo(a) >= b }

// assigns reports whether a generic rule could find a secret the
// scanner has not already replaced: whether one of names (lower case) is
// followed, as those rules require, by at most 20 more name bytes, at
// most 3 blanks or quotes, an assignment operator (= > : :: := => ?= ||
// ,), at most 5 quotes, blanks or '=', and a value as long as the rule's
// shortest secret that no span holds yet. It is a necessary condition only, and far
// cheaper than compiling and running the rule: "gh auth status",
// "curl https://api.github.com" and "GITHUB_TOKEN=<already replaced>"
// fail it. at maps text to f.s as in glRule.
func (f *finder) assigns(text string, at []int, names []string, minLen int) bool {
	for _, name := range names {
		for i := 0; i+len(name) <= len(text); i++ {
			if lower(text[i]) != name[0] || !hasPrefixFold(text[i:], name) {
				continue
			}
			j := i + len(name)
			for k := 0; k <= 20 && j+k <= len(text); k++ {
				if f.valueAfterOperator(text, at, j+k, minLen) {
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
func (f *finder) valueAfterOperator(text string, at []int, j, minLen int) bool {
	for k := 0; k <= 3 && j < len(text); k++ {
		switch text[j] {
		case '=', '>', ':', '|', '?', ',':
			// Every operator is at most 4 bytes of these; each way of
			// reading it leaves the value at one of the next positions.
			for op := 1; op <= 4 && j+op <= len(text); op++ {
				if !strings.ContainsRune("=>:|?,", rune(text[j+op-1])) {
					break
				}
				if f.uncoveredValue(text, at, j+op, minLen) {
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
// that the rule's secret holds none) that is not already replaced whole.
// It looks at no more than minLen bytes and the one after the replaced
// text, so that a text of many names stays linear.
func (f *finder) uncoveredValue(text string, at []int, v, minLen int) bool {
	for k := 0; k <= 5 && v <= len(text); k++ {
		if f.uncoveredRun(text, at, v, minLen) {
			return true
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

func isRunByte(c byte) bool {
	return !isSpace(c) && c != '\'' && c != '"' && c != '`' && c != ';'
}

// uncoveredRun: a run of at least minLen run bytes starts at text[v] and
// may reach past the replaced text that holds it, if any.
func (f *finder) uncoveredRun(text string, at []int, v, minLen int) bool {
	e := v
	for e < len(text) && e-v < minLen && isRunByte(text[e]) {
		e++
	}
	if e-v < minLen {
		return false
	}
	ov := v
	if at != nil {
		ov = at[v]
	}
	if ov >= len(f.s) {
		return false
	}
	end := f.coveredTo(ov)
	if end < 0 {
		return true // nothing replaced here
	}
	// Replaced up to end: a secret longer than that needs the run to go
	// on past it (it may also break inside; then this says yes anyway).
	te := end
	if at != nil {
		te = sort.SearchInts(at, end)
	}
	if te < e {
		return true
	}
	return te < len(text) && isRunByte(text[te])
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

// Reference runs every rule whose keywords occur in s as gitleaks itself
// does: its own regex (the generic rules with their name prefix), none of
// this package's shortcuts (required literals, the assignment test,
// covered spans), then entropy floors and allowlists. It returns each
// finding's rule and secret. It is slow; tests use it to check that Find
// and the redactor miss nothing the rules match.
func Reference(s string) (ids, secrets []string) {
	var rs glRuleSet
	glSelect(s, &rs)
	for i := range glRules {
		if rs[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		r := &glRules[i]
		src := r.re
		if r.namePrefix {
			src = `(?i)[\w.-]{0,50}?` + strings.TrimPrefix(src, "(?i)")
		}
		for _, m := range compile(src).FindAllStringSubmatchIndex(s, -1) {
			a, b := glSecret(r, m)
			if a < 0 || a >= b {
				continue
			}
			secret := s[a:b]
			if r.entropy > 0 && entropy(secret) <= r.entropy {
				continue
			}
			if glAllowed(glGlobal[:], s, secret, m) || glAllowed(r.allow, s, secret, m) {
				continue
			}
			ids = append(ids, r.id)
			secrets = append(secrets, secret)
		}
	}
	return ids, secrets
}

// Version is the gitleaks release the rules come from.
const Version = gitleaksVersion

// CompileAll compiles every rule afresh, as a program that compiled them
// all at start would; for the benchmark that justifies compiling lazily.
func CompileAll() {
	for i := range glRules {
		regexp.MustCompile(glRules[i].re)
	}
}
