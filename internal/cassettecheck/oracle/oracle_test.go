package oracle

import (
	"testing"

	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
)

func parse(t *testing.T, s string) *js.Value {
	t.Helper()
	v, _, err := js.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestProject pins key_projection as runback's projectInput applies it.
func TestProject(t *testing.T) {
	for _, c := range []struct{ input, proj, want string }{
		{`{"a":1,"b":2}`, `null`, `{"a":1,"b":2}`},
		{`{"a":1,"b":2}`, `{"keep":[],"drop":[]}`, `{"a":1,"b":2}`},
		{`{"a":{"x":1},"b":2,"c":3}`, `{"keep":["a.x","b"]}`, `{"a":{"x":1},"b":2}`},               // keep: first segment only
		{`{"a":[{"id":1,"t":2},{"id":3}],"b":1}`, `{"drop":["a.id"]}`, `{"a":[{"t":2},{}],"b":1}`}, // through arrays
		{`{"a":{"b":{"c":1,"d":2}}}`, `{"drop":["a.b.c","x.y"]}`, `{"a":{"b":{"d":2}}}`},
		{`{"a":1,"b":2}`, `{"drop":"a"}`, `{"b":2}`},    // a string iterates by character
		{`[1,2]`, `{"drop":["0"]}`, `[1,2]`},            // not a plain object: as is
		{`{"a":1}`, `{"keep":true}`, `{"a":1}`},         // no length: a copy, unchanged
		{`{"a":1}`, `{"keep":{"length":0}}`, `{"a":1}`}, // an own length 0 counts as empty
		{`{"__proto__":{"x":1},"y":2}`, `{"drop":["__proto__.x"]}`, `{"__proto__":{},"y":2}`},
		{`{"y":2}`, `{"drop":["__proto__.x"]}`, `{"y":2}`}, // never Object.prototype
	} {
		got, err := Project(parse(t, c.input), parse(t, c.proj))
		if err != nil {
			t.Errorf("%s %s: %v", c.input, c.proj, err)
			continue
		}
		if s := string(js.Canonical(got)); s != string(js.Canonical(parse(t, c.want))) {
			t.Errorf("%s %s = %s, want %s", c.input, c.proj, s, c.want)
		}
	}
	for _, proj := range []string{`{"keep":"a"}`, `{"keep":[1]}`, `{"drop":[null]}`, `{"drop":{"length":1}}`} {
		if _, err := Project(parse(t, `{"a":1}`), parse(t, proj)); err == nil {
			t.Errorf("%s: runback's code throws here", proj)
		}
	}
}

// TestEntries pins the oracle entry of each event type and the seq order.
func TestEntries(t *testing.T) {
	events := parse(t, `[
		{"seq":3,"type":"env","kind":"now","key":"now","output":1},
		{"seq":1,"type":"llm","model":{"model_id":"m"},"request":{"q":1},"response":{"a":1}},
		{"seq":2,"type":"tool","tool_name":"t","input":{},"output":null,"error":{"name":"E"}},
		{"type":"run","phase":"end"}
	]`).Items
	d, n, err := CassetteDigest(events)
	if err != nil || n != 3 {
		t.Fatalf("%v %d", err, n)
	}
	var h Hasher
	// By hand: seq 0 (the run event, no entry), then seq 1, 2, 3.
	llm := Entry{js.Str("llm"), js.Str(h.Key("llm", "m", parse(t, `{"q":1}`))), *parse(t, `{"a":1}`)}
	tool := Entry{js.Str("tool"), js.Str(h.Key("tool", "t", parse(t, `{}`))), *parse(t, `{"error":{"name":"E"}}`)}
	env := Entry{js.Str("now"), js.Str("now"), js.Num(1)}
	want := h.Step(h.Step(h.Step("", &llm), &tool), &env)
	if d != want {
		t.Fatalf("digest %s, want %s", d, want)
	}
	if d, n, _ := CassetteDigest(nil); d != EmptyDigest || n != 0 {
		t.Fatalf("no events: %s %d", d, n)
	}
	if _, _, err := CassetteDigest(parse(t, `[null, {"seq":1}]`).Items); err == nil {
		t.Fatal("a null event among two: runback's sort throws")
	}
	if _, _, err := CassetteDigest(parse(t, `[{"seq":{"toString":1}}]`).Items); err != nil {
		t.Fatalf("one event is never compared: %v", err)
	}
}
