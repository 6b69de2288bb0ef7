package server

import (
	"fmt"
	"testing"
)

// TestForwardLeavesKeepsOrder: the forwarder hands every queued leaf to
// the log in the order queued, whether it takes it as the one it waited
// for or in a gathered pass, and returns once the queue is closed,
// without waiting out its gather when closeLog signals it.
func TestForwardLeavesKeepsOrder(t *testing.T) {
	s := &Server{}
	s.tl.leaves, s.tl.closing = make(chan []byte, 64), make(chan struct{})
	var got []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.forwardLeaves(func(leaf []byte) { got = append(got, string(leaf)) })
	}()
	const n = 1000
	for i := range n {
		s.tl.leaves <- fmt.Appendf(nil, "leaf %d", i) // full queue: waits for the forwarder
	}
	close(s.tl.closing)
	close(s.tl.leaves)
	<-done
	if len(got) != n {
		t.Fatalf("%d leaves forwarded, want %d", len(got), n)
	}
	for i, g := range got {
		if want := fmt.Sprintf("leaf %d", i); g != want {
			t.Fatalf("leaf %d forwarded as %q, want %q", i, g, want)
		}
	}
}
