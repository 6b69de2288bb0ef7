package redact

import "strings"

// span is a [start,end) byte range of the input to replace with Mask.
type span struct{ start, end int }

// scanner makes one pass over a string and collects the spans to replace.
// It is a single left-to-right walk that reacts to a few bytes ('=', ':',
// "-----", the start of a word or argument) instead of running many
// regular expressions; it allocates only when it finds something.
type scanner struct {
	s       string
	r       *Redactor
	spans   []span
	covered int  // the largest span end so far
	aws     int8 // whether s mentions AWS: 0 not yet known, 1 yes, -1 no

	memo     [4]runMemo // see run
	memoNext int

	cover   []int32 // see coveredTo
	indexed int     // spans already in cover
}

func (sc *scanner) add(start, end int) {
	if start >= end || sc.s[start:end] == Mask {
		return
	}
	sc.spans = append(sc.spans, span{start, end})
	sc.covered = max(sc.covered, end)
}

func (sc *scanner) scan() {
	s := sc.s
	b64 := 0 // start of the current run of base64 bytes, for awsSecret
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isB64(c) {
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
		if isAlnum(c) && (i == 0 || !isAlnum(s[i-1])) {
			if mayStartToken(s, i) {
				if end := sc.token(i); end > 0 {
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
			for i+1 < len(s) && isAlnum(s[i+1]) {
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
func (sc *scanner) awsSecret(start, end int) {
	s := sc.s
	if end < len(s) && s[end] == '=' { // padded base64 is something else
		return
	}
	var upper, lowerSeen, digit bool
	for _, c := range []byte(s[start:end]) {
		upper = upper || isUpper(c)
		lowerSeen = lowerSeen || isLower(c)
		digit = digit || isDigit(c)
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
	return isSpace(c)
}

func (sc *scanner) mentionsAWS() bool {
	if sc.aws == 0 {
		sc.aws = -1
		if containsFold(sc.s, "aws") || strings.Contains(sc.s, "AKIA") || strings.Contains(sc.s, "ASIA") {
			sc.aws = 1
		}
	}
	return sc.aws > 0
}

// coveredTo is the furthest end of the spans found so far, or of a Mask
// an earlier pass wrote, that hold byte i, or -1 (gitleaks.Find's view of
// what is already replaced).
func (sc *scanner) coveredTo(i int) int {
	end := -1
	for k := max(0, i-len(Mask)+1); k <= i; k++ {
		if sc.s[k] == '[' && strings.HasPrefix(sc.s[k:], Mask) {
			end = k + len(Mask)
		}
	}
	if len(sc.spans) <= linearSpans {
		for _, sp := range sc.spans {
			if sp.start <= i && i < sp.end {
				end = max(end, sp.end)
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
		for k := sp.start + 1; k < len(sc.cover); k += k & -k {
			sc.cover[k] = max(sc.cover[k], int32(sp.end))
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

// linearSpans is how many spans coveredTo walks one by one; past it, it
// keeps a Fenwick tree of the furthest span end by start (4 bytes per
// input byte, only for inputs that hold that many secrets).
var linearSpans = 64
