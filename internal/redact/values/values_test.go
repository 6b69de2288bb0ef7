package values

import "testing"

func TestAt(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{`"a b" rest`, "a b"},
		{`'it''s'`, "it"},
		{`$'x\'y' z`, `x\'y`},
		{`pass\ word next`, `pass\ word`},
		{`v;next`, "v"},
		{`[REDACTED]x y`, "[REDACTED]x"}, // the mask of an earlier pass is one unit
		{`"unclosed`, "unclosed"},
	} {
		start, end, _ := At(c.s, 0)
		if got := c.s[start:end]; got != c.want {
			t.Errorf("At(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestWorth(t *testing.T) {
	for v, want := range map[string]bool{
		"hunter2": true, "$TOKEN": false, "${TOKEN}": false, "/run/secret": false,
		"<your-token>": false, "xxxx": false, "true": false, Mask: false,
	} {
		if got := Worth(v, 2, 0); got != want {
			t.Errorf("Worth(%q) = %v, want %v", v, got, want)
		}
	}
	if !Worth("$notref", 2, '\'') {
		t.Error("inside single quotes $X is literal")
	}
	if Opaque("db-creds-2") || !Opaque("a8Kd93jfQ0x") {
		t.Error("Opaque")
	}
}
