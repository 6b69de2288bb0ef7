// Package scan is the redactor's single pass over a string: it finds
// names followed by their values (NAME=value, name: value, --name value,
// "name", "value" and the assignment forms of other languages), private
// key blocks, AWS secret keys, and, through packages shapes and web,
// well-known token shapes, URL passwords, auth headers and schemes. It
// collects the spans to replace and replaces nothing itself.
package scan

import (
	"strings"

	"github.com/logbook-project/logbook/internal/redact/ascii"
	"github.com/logbook-project/logbook/internal/redact/shapes"
	"github.com/logbook-project/logbook/internal/redact/values"
)

// Span is a [Start,End) byte range of the input to replace with Mask.
type Span struct{ Start, End int }

// Scanner makes one pass over a string and collects the spans to replace.
// It is a single left-to-right walk that reacts to a few bytes ('=', ':',
// "-----", the start of a word or argument) instead of running many
// regular expressions; it allocates only when it finds something.
type Scanner struct {
	s       string
	extra   []string // a project's own secret words, lower case
	spans   []Span
	covered int  // the largest span end so far
	aws     int8 // whether s mentions AWS: 0 not yet known, 1 yes, -1 no

	memo shapes.Memo

	cover   []int32 // see CoveredTo
	indexed int     // spans already in cover
}

// New returns a Scanner of s; extra are a project's own secret words (lower
// case), which make a name secret like the built-in ones.
func New(s string, extra []string) Scanner { return Scanner{s: s, extra: extra} }

// Spans returns the spans found so far, in no particular order; they may
// overlap.
func (sc *Scanner) Spans() []Span { return sc.spans }

// Add records s[start:end] as a secret, unless it is empty or a Mask
// already.
func (sc *Scanner) Add(start, end int) { sc.add(start, end) }

func (sc *Scanner) add(start, end int) {
	if start >= end || sc.s[start:end] == values.Mask {
		return
	}
	sc.spans = append(sc.spans, Span{start, end})
	sc.covered = max(sc.covered, end)
}

// Scan makes the pass.
func (sc *Scanner) Scan() {
	s := sc.s
	b64 := 0 // start of the current run of base64 bytes, for awsSecret
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !ascii.IsB64(c) {
			if i-b64 == awsSecretLen {
				sc.awsSecret(b64, i)
			}
			b64 = i + 1
		}
		switch c {
		// An '=' or ':' inside a value already replaced could only find a
		// value inside it again; skipping them keeps "token=token=..." linear.
		case '=':
			if i >= sc.covered {
				sc.assign(i)
			}
		case ':':
			if i >= sc.covered {
				sc.colon(i)
			}
		case ',':
			if i >= sc.covered {
				sc.comma(i)
			}
		case '>':
			if i >= sc.covered {
				sc.xmlElement(i)
			}
		case '-':
			if strings.HasPrefix(s[i:], pemBegin) {
				if end := sc.pem(i); end > i {
					i, b64 = end-1, end
					continue
				}
			}
		}
		argStart := i == 0 || isArgBoundary(s[i-1])
		if ascii.IsAlnum(c) && (i == 0 || !ascii.IsAlnum(s[i-1])) {
			if shapes.MayStart(s, i) {
				if end := shapes.End(s, i, &sc.memo); end > 0 {
					sc.add(i, end)
					i, b64 = end-1, end
					continue
				}
			}
			if argStart {
				sc.word(i)
			}
			// Nothing can start inside a run of letters and digits: skip
			// to its end in a tight loop (most of a command is such runs).
			for i+1 < len(s) && ascii.IsAlnum(s[i+1]) {
				i++
			}
			continue
		}
		if argStart {
			sc.word(i)
		}
	}
	if len(s)-b64 == awsSecretLen {
		sc.awsSecret(b64, len(s))
	}
}

// awsSecretLen is the length of an AWS secret access key.
const awsSecretLen = 40

// awsSecret replaces s[start:end], a run of exactly 40 base64 bytes, when
// it has the shape of an AWS secret access key (mixed case and a digit)
// and the string mentions AWS: that shape alone is too generic.
func (sc *Scanner) awsSecret(start, end int) {
	s := sc.s
	if end < len(s) && s[end] == '=' { // padded base64 is something else
		return
	}
	var upper, lowerSeen, digit bool
	for _, c := range []byte(s[start:end]) {
		upper = upper || ascii.IsUpper(c)
		lowerSeen = lowerSeen || ascii.IsLower(c)
		digit = digit || ascii.IsDigit(c)
	}
	if upper && lowerSeen && digit && sc.mentionsAWS() {
		sc.add(start, end)
	}
}

// isArgBoundary precedes a shell argument or a word of prose.
func isArgBoundary(c byte) bool {
	switch c {
	case '"', '\'', '`', '(', ';', '|', '&', ':':
		return true
	}
	return ascii.IsSpace(c)
}

func (sc *Scanner) mentionsAWS() bool {
	if sc.aws == 0 {
		sc.aws = -1
		if ascii.ContainsFold(sc.s, "aws") || strings.Contains(sc.s, "AKIA") || strings.Contains(sc.s, "ASIA") {
			sc.aws = 1
		}
	}
	return sc.aws > 0
}

// CoveredTo is the furthest end of the spans found so far, or of a Mask
// an earlier pass wrote, that hold byte i, or -1 (gitleaks.Find's view of
// what is already replaced).
func (sc *Scanner) CoveredTo(i int) int {
	end := -1
	for k := max(0, i-len(values.Mask)+1); k <= i; k++ {
		if sc.s[k] == '[' && strings.HasPrefix(sc.s[k:], values.Mask) {
			end = k + len(values.Mask)
		}
	}
	if len(sc.spans) <= linearSpans {
		for _, sp := range sc.spans {
			if sp.Start <= i && i < sp.End {
				end = max(end, sp.End)
			}
		}
		return end
	}
	// Many spans: gitleaks.Find asks about every candidate, and a walk of
	// every span for each made a text of many secrets quadratic (2 MB of
	// "api_key=AAAA… " took 10 s). The furthest end of the spans that start
	// at or before i holds i exactly when it lies beyond i.
	if i < 0 || i >= len(sc.s) {
		return end
	}
	if sc.cover == nil {
		sc.cover = make([]int32, len(sc.s)+1)
	}
	for ; sc.indexed < len(sc.spans); sc.indexed++ {
		sp := sc.spans[sc.indexed]
		for k := sp.Start + 1; k < len(sc.cover); k += k & -k {
			sc.cover[k] = max(sc.cover[k], int32(sp.End))
		}
	}
	m := int32(0)
	for k := i + 1; k > 0; k -= k & -k {
		m = max(m, sc.cover[k])
	}
	if int(m) > i {
		end = max(end, int(m))
	}
	return end
}

// linearSpans is how many spans CoveredTo walks one by one; past it, it
// keeps a Fenwick tree of the furthest span end by start (4 bytes per
// input byte, only for inputs that hold that many secrets).
var linearSpans = 64
