package scan

import (
	"strings"
	"testing"
)

// TestCoverIndexAgrees: past linearSpans, CoveredTo answers from a Fenwick
// tree; it must give what the walk of every span gives, for spans added in
// any order and queries between the additions.
func TestCoverIndexAgrees(t *testing.T) {
	seed := uint32(1)
	next := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
	walk := func(sc *Scanner, i int) int {
		end := -1
		for k := max(0, i-9); k <= i && k < len(sc.s); k++ {
			if strings.HasPrefix(sc.s[k:], "[REDACTED]") {
				end = k + 10
			}
		}
		for _, sp := range sc.spans {
			if sp.Start <= i && i < sp.End {
				end = max(end, sp.End)
			}
		}
		return end
	}
	for round := 0; round < 50; round++ {
		s := strings.Repeat("abcdefgh[REDACTED]xyz", 20+next(50))
		sc := New(s, nil)
		for k := 0; k < 400; k++ {
			a := next(len(s))
			sc.Add(a, a+1+next(min(40, len(s)-a)))
			i := next(len(s))
			if got, want := sc.CoveredTo(i), walk(&sc, i); got != want {
				t.Fatalf("round %d, %d spans: CoveredTo(%d) = %d, the walk says %d", round, len(sc.spans), i, got, want)
			}
		}
	}
}
