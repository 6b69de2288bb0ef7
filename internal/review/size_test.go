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

// TestEventSize: a review holds one Event per step that is no call's
// (prompts, stops, notifications: 25,000 on a 100,000-step record): 192
// bytes when its ids and both digest lists were fields, 136 now.
func TestEventSize(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(Event{}); n > 136 {
		t.Fatalf("an Event is %d bytes, want at most 136: what few events have goes behind a pointer", n)
	}
}
