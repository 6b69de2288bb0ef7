package chain

import (
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// steps links n note steps and returns them parsed back.
func steps(t *testing.T, n int) []*strictjson.Value {
	var out []*strictjson.Value
	prev := ""
	for i := 0; i < n; i++ {
		b, h, err := Link(Step{At: "2026-01-01T00:00:00Z", Kind: format.KindNote, Summary: "s"}, int64(i), prev)
		if err != nil {
			t.Fatal(err)
		}
		v, err := strictjson.Parse(b, strictjson.Options{MaxDepth: format.MaxDepth})
		if err != nil {
			t.Fatal(err)
		}
		out, prev = append(out, v), h
	}
	return out
}

func TestWalker(t *testing.T) {
	var w Walker
	all := steps(t, 3)
	for _, v := range all {
		if err := w.Step(v); err != nil {
			t.Fatal(err)
		}
	}
	if w.Count() != 3 || w.Tip() != all[2].Get("hash").Str {
		t.Errorf("count %d tip %s", w.Count(), w.Tip())
	}
	if (&Walker{}).Tip() != "" {
		t.Error("tip of no steps")
	}
}

func TestWalkerRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(vs []*strictjson.Value)
		code format.Code
		at   int64 // steps walked before the failure
	}{
		{"seq skips", func(vs []*strictjson.Value) { vs[1].Get("seq").Str = "2" }, format.StepOutOfOrder, 1},
		{"seq not a number", func(vs []*strictjson.Value) { *vs[0].Get("seq") = strictjson.Str("0") }, format.StepOutOfOrder, 0},
		{"first prev not null", func(vs []*strictjson.Value) { *vs[0].Get("prev") = strictjson.Str(EmptyTip) }, format.ChainBroken, 0},
		{"prev of another step", func(vs []*strictjson.Value) { *vs[2].Get("prev") = *vs[0].Get("hash") }, format.ChainBroken, 2},
		{"hash does not recompute", func(vs []*strictjson.Value) { vs[1].Get("summary").Str = "t" }, format.ChainBroken, 1},
	} {
		vs := steps(t, 3)
		c.edit(vs)
		var w Walker
		var err error
		for _, v := range vs {
			if err = w.Step(v); err != nil {
				break
			}
		}
		if format.CodeOf(err) != c.code || w.Count() != c.at {
			t.Errorf("%s: got %v after %d steps, want %s after %d", c.name, err, w.Count(), c.code, c.at)
		}
	}
}

func TestSeqMinusZero(t *testing.T) {
	v := strictjson.Value{Kind: strictjson.Number, Str: "-0"}
	if err := Seq(0, &v); err != nil {
		t.Error(err)
	}
	if err := Seq(1, &v); format.CodeOf(err) != format.StepOutOfOrder {
		t.Error(err)
	}
	if err := Seq(0, nil); format.CodeOf(err) != format.StepOutOfOrder {
		t.Error(err)
	}
}
