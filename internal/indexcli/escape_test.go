package indexcli

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/fleet"
)

// FuzzEscapeJSON: what escapeJSON makes of encoding/json's output reads
// back as the same value, and holds no rune past ASCII that does not
// print, nor DEL.
func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "\u009b31m", "\u202eevil", "\x7f", "\U000e0001", "é\u2028\ufeff", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in := map[string]any{"k" + s: []string{s, "x"}}
		b, err := json.MarshalIndent(in, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		out := escapeJSON(b)
		var plain, escaped any
		if err := json.Unmarshal(b, &plain); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &escaped); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		p, _ := json.Marshal(plain)
		e, _ := json.Marshal(escaped)
		if string(p) != string(e) {
			t.Fatalf("%q read back as %s, want %s", out, e, p)
		}
		for i := 0; i < len(out); {
			r, n := utf8.DecodeRune(out[i:])
			if r == 0x7f || (r >= utf8.RuneSelf && !fleet.Prints(r)) {
				t.Fatalf("%U left in %q", r, out)
			}
			i += n
		}
	})
}
