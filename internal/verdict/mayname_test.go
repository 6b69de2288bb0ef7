package verdict

import (
	"strings"
	"testing"
)

// TestMayNameActors: the actor key is found however its letters are
// escaped, and a record of escapes that spell something else (or whose
// strings are long) is passed over in one look at each string.
func TestMayNameActors(t *testing.T) {
	for rec, want := range map[string]bool{
		`{"logbook.actor":{}}`:                      true,
		`{"logbook\u002eactor":{}}`:                 true,
		`{"x":"a\"b\u0030","\u006cogbook.actor":1}`: true,
		`{"logbook\u002Eactor":{}}`:                 true,
		`{"logbook\u002eactors":{}}`:                false,
		`{"logbook\u002eacto":{}}`:                  false,
		`{"logbook\u012eactor":{}}`:                 false,
		`{"logbook\u002eactor\u0000":{}}`:           false,
		`{"logbook\u00zzactor":{}}`:                 false,
		`{"x":"\u001b[31m red"}`:                    false,
		`{"logbook.acto\u0072":{}}`:                 true,
	} {
		if got := mayNameActors([]byte(rec)); got != want {
			t.Errorf("%s: %v, want %v", rec, got, want)
		}
	}
	many := []byte(`{"x":[` + strings.Repeat(`"l\u006fgbook.actoR",`, 20000) + `"\u0030"]}`)
	if allocs := testing.AllocsPerRun(3, func() { mayNameActors(many) }); allocs > 0 {
		t.Errorf("%.0f allocations over 20,000 near misses", allocs)
	}
}
