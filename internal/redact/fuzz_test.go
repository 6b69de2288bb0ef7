package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzString checks the properties every input must have: no panic,
// idempotence (redacting twice changes nothing more), valid UTF-8 out when
// valid UTF-8 goes in, and a prefilter that never skips a secret.
func FuzzString(f *testing.F) {
	for _, c := range secretCases(f) {
		f.Add(c.input)
	}
	for _, line := range readLines(f, "clean.txt") {
		f.Add(line)
	}
	for _, s := range []string{
		"", "=", ":", "://@", "-----BEGIN PRIVATE KEY-----", "TOKEN=[REDACTED]x",
		"token: Bearer ", "Authorization:", "a:b@c://d:e@f", "-u :", `"\"password\":\"`,
		"PASSWORD=\xff\xfe", "ключ token=значение", "eyJ" + strings.Repeat("A", 20) + ".",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := String(s)
		if twice := String(once); twice != once {
			t.Fatalf("not idempotent:\n   in: %q\n once: %q\ntwice: %q", s, once, twice)
		}
		if utf8.ValidString(s) && !utf8.ValidString(once) {
			t.Fatalf("invalid UTF-8 out of valid input:\n in: %q\nout: %q", s, once)
		}
		checkPrefilter(t, s)
	})
}
