package jsvalue

import (
	"errors"
	"strings"
	"testing"
)

// TestCanonical pins the reader and the canonical form on the project's
// own vectors (the conformance vectors from runback are in
// TestSharedEdgeVectors, when ../shared is present).
func TestCanonical(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1,"a":2,"10":3,"9":4}`, `{"10":3,"9":4,"a":2,"b":1}`},                  // no integer-key hoisting
		{`{"\ue000":1,"\ud83d\ude00":2}`, `{"😀":2,"` + "\ue000" + `":1}`},             // UTF-16 order, not code point order
		{`{"\udc00":1,"\ud800\udc00":2,"\ud800":3}`, `{"\ud800":3,"𐀀":2,"\udc00":1}`}, // lone surrogates sort as code units
		{`["\udbff","\u00e9","\u2028","\u007f","\u001f"]`, `["\udbff","é","` + "\u2028" + `","` + "\x7f" + `","\u001f"]`},
		{`[1E400,-1e999,-0,1e21,1e-7,123e-2,0.1,100,1e2,5e-324]`, `[null,null,0,1e+21,1e-7,1.23,0.1,100,100,5e-324]`},
		{`{"a":1,"a":[2]}`, `{"a":[2]}`},                                         // last duplicate wins
		{`{"__proto__":{"x":1},"a":0}`, `{"__proto__":{"x":1},"a":0}`},           // own __proto__ is data
		{"\"\xff\xe2\x82A\xed\xa0\x80\"", "\"\ufffd\ufffdA\ufffd\ufffd\ufffd\""}, // WHATWG decoding
		{` [ ] `, `[]`},
	} {
		v, _, err := Parse([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := string(Canonical(v)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	var e Encoder
	v, _, _ := Parse([]byte(`{"_hash":"x","k":{"_hash":"kept"}}`))
	if got := string(e.Append(nil, v, "_hash")); got != `{"k":{"_hash":"kept"}}` {
		t.Errorf("skipTop: %s", got)
	}
}

// TestRefused: what JSON.parse throws on is refused here.
func TestRefused(t *testing.T) {
	for _, in := range []string{"", "\ufeff{}", `{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `+1`, `"\x01"`, `"\u12"`, `"\x"`, `NaN`, `{"a" 1}`, `[1] 2`, `'a'`, "\"a\\\u00e9\""} {
		if _, _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	if _, _, err := Parse([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))); !errors.Is(err, ErrDepth) {
		t.Errorf("deep input: %v", err)
	}
	if _, _, err := Parse([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth))); err != nil {
		t.Errorf("MaxDepth levels refused: %v", err)
	}
}

// TestReport: each tolerance is reported with where it was.
func TestReport(t *testing.T) {
	_, rep, err := Parse([]byte("{\"a\":[{\"k\":1,\"k\":2}],\"s\":\"\\ud800\",\"n\":1E400,\"p\":9007199254740993,\"__proto__\":0,\"u\":\"\xff\"}"))
	if err != nil {
		t.Fatal(err)
	}
	for code, path := range map[string]string{NoteDuplicateKey: "a[0].k", NoteLoneSurrogate: "s", NoteOverflow: "n", NotePrecision: "p", NoteProtoKey: "__proto__", NoteInvalidUTF8: ""} {
		if rep.Counts[code] != 1 || rep.Paths[code][0] != path {
			t.Errorf("%s: count %d paths %q, want 1 at %q", code, rep.Counts[code], rep.Paths[code], path)
		}
	}
}

// TestToString pins the JavaScript conversions the verifier relies on.
func TestToString(t *testing.T) {
	for in, want := range map[string]string{`null`: "null", `[1,null,"a",[2,3]]`: "1,,a,2,3", `{"a":1}`: "[object Object]", `1e21`: "1e+21", `true`: "true"} {
		v, _, _ := Parse([]byte(in))
		if got, err := ToString(v); err != nil || got != want {
			t.Errorf("ToString(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	v, _, _ := Parse([]byte(`{"toString":1}`))
	if _, err := ToString(v); err == nil {
		t.Error("an object with its own toString converted")
	}
	for in, want := range map[string]float64{` 12 `: 12, ``: 0, `0x10`: 16, `-Infinity`: -1 / zero(), `1e3`: 1000} {
		if got := StringToNumber(in); got != want {
			t.Errorf("StringToNumber(%q) = %v, want %v", in, got, want)
		}
	}
	if f := StringToNumber("12px"); f == f {
		t.Error("12px is a number")
	}
}

func zero() float64 { return 0 }
