package fleet_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/fleet"
)

// TestAssertedUser: the user a client claims is written with the rule an
// OIDC subject is refused by (fleet.Prints, TestSubjectControls): a C0 or
// C1 control, a bidi override, a line separator or a byte that is not
// UTF-8 becomes "?", and a long claim is cut at a rune's start.
func TestAssertedUser(t *testing.T) {
	for in, want := range map[string]string{
		"alice":              "alice",
		"Dev One (CI) é":     "Dev One (CI) é",
		"dev\x1b[8m":         "dev?[8m",
		"dev\u009b8m":        "dev?8m",
		"dev\u202egnp.exe":   "dev?gnp.exe",
		"dev\u2028x":         "dev?x",
		"dev\xff":            "dev?",
		"a\x7fb":             "a?b",
		"tab\there":          "tab?here",
		"\u200fhidden\u2066": "?hidden?",
	} {
		if got := fleet.AssertedUser(in); got != want {
			t.Errorf("AssertedUser(%q) = %q, want %q", in, got, want)
		}
		if fleet.Printable(in) != (in == want) {
			t.Errorf("Printable(%q) = %v", in, fleet.Printable(in))
		}
	}
	long := strings.Repeat("é", fleet.MaxAsserted) // 2 bytes each
	got := fleet.AssertedUser(long)
	if len(got) != fleet.MaxAsserted || !utf8.ValidString(got) {
		t.Errorf("a long claim: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if got := fleet.AssertedUser("x" + long); len(got) != fleet.MaxAsserted-1 || !utf8.ValidString(got) || strings.Contains(got, "?") {
		t.Errorf("a long claim cut inside a rune: %d bytes %q…", len(got), got[:8])
	}
	// Not UTF-8 past the cut: shown as "?"s, not cut to nothing.
	if got := fleet.AssertedUser("a" + strings.Repeat("\x80", 300)); got != "a"+strings.Repeat("?", fleet.MaxAsserted-4) {
		t.Errorf("a long claim of continuation bytes: %q", got)
	}
	// A rune of 4 bytes that the cut would split is dropped whole.
	if got := fleet.AssertedUser(strings.Repeat("x", fleet.MaxAsserted-2) + "🙂"); got != strings.Repeat("x", fleet.MaxAsserted-2) {
		t.Errorf("a 4-byte rune at the cut: %q", got[fleet.MaxAsserted-6:])
	}
}
