package main

import (
	"strings"
	"testing"
)

// A server's error answer reaches stderr and errors.log: no control, escape
// or bidi character of it may, and not more than a bounded prefix.
func TestPrintable(t *testing.T) {
	got := printable([]byte("  {\"error\":\"BUSY\"}\x1b[2J\x07\u202e\r\nnext\u0085 "), 512)
	if want := "{\"error\":\"BUSY\"}?[2J????next"; got != want {
		t.Fatalf("printable = %q, want %q", got, want)
	}
	if got := printable([]byte(strings.Repeat("a", 10000)), 512); len(got) != 512 {
		t.Fatalf("%d bytes kept", len(got))
	}
}
