package review

import (
	"testing"
	"unsafe"
)

// TestCallSize: a review holds one Call per tool call beside the record
// (about 37,500 on a 100,000-step record), so its size is the review's
// peak: 288 bytes when its seqs, gaps, files and gate were fields of
// their own, 176 now (issue 21). Growing it is a choice to make here.
func TestCallSize(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(Call{}); n > 176 {
		t.Fatalf("a Call is %d bytes, want at most 176: what few calls have goes in callMore", n)
	}
}
