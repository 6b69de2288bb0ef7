package jcs

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// TestRFC8785Vectors: every input of the public RFC 8785 test set
// canonicalizes to the expected bytes exactly.
func TestRFC8785Vectors(t *testing.T) {
	corpus := corpora.Require(t, "corpora/jcs", "RFC 8785 test vectors (6 inputs)")
	inputs, err := filepath.Glob(filepath.Join(corpus, "input", "*.json"))
	if err != nil || len(inputs) != 6 {
		t.Fatalf("want 6 RFC 8785 vectors, found %d (%v)", len(inputs), err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(corpus, "output", name))
			if err != nil {
				t.Fatal(err)
			}
			v, err := strictjson.Parse(src, strictjson.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Append(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %q\nwant %q", got, want)
			}
		})
	}
}

// TestNumberAppendixB: the IEEE 754 → string table of RFC 8785 Appendix B.
func TestNumberAppendixB(t *testing.T) {
	cases := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, c := range cases {
		if got := FormatFloat(math.Float64frombits(c.bits)); got != c.want {
			t.Errorf("%016x: got %s want %s", c.bits, got, c.want)
		}
	}
}

func TestNumberLiterals(t *testing.T) {
	cases := map[string]string{
		"-0": "0", "0": "0", "1E2": "100", "1.5e-7": "1.5e-7", "4.50": "4.5",
		"123456789012345678": "123456789012345680", "9007199254740993": "9007199254740992",
		"-0.0": "0", "1e21": "1e+21", "1e20": "100000000000000000000",
	}
	for in, want := range cases {
		got, err := FormatNumber(in)
		if err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"1e400", "-1e400"} {
		if _, err := FormatNumber(in); err != ErrNoCanonicalForm {
			t.Errorf("%s: want ErrNoCanonicalForm, got %v", in, err)
		}
	}
}

func TestStringEscapes(t *testing.T) {
	in := "a\"\\\b\t\n\f\r\x01\x1f\x7f<>&\u2028\u2029é😀"
	var b Buffer
	b.AppendString(in)
	want := `"a\"\\\b\t\n\f\r\u0001\u001f` + "\x7f<>&\u2028\u2029é😀\""
	if string(b.B) != want {
		t.Fatalf("got %q want %q", b.B, want)
	}
}

func TestUTF16Order(t *testing.T) {
	// U+FB33 (BMP, above the surrogates) sorts after U+1F600 in UTF-16 but
	// before it by code point; "\r" sorts first; a prefix sorts first.
	keys := []string{"\ufb33", "😀", "a", "\r", "ab", "€"}
	want := []string{"\r", "a", "ab", "€", "😀", "\ufb33"}
	v := strictjson.Obj()
	for _, k := range keys {
		v.Members = append(v.Members, strictjson.Member{Key: k, Value: strictjson.Int(1)})
	}
	got, err := Append(nil, &v)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, k := range want {
		parts = append(parts, `"`+strings.ReplaceAll(k, "\r", `\r`)+`":1`)
	}
	if string(got) != "{"+strings.Join(parts, ",")+"}" {
		t.Fatalf("got %s", got)
	}
}

func TestNoCanonicalForm(t *testing.T) {
	for _, src := range []string{`{"a":1,"a":2}`, `["\ud800"]`, `[1e999]`} {
		v, err := strictjson.Parse([]byte(src), strictjson.Options{Lenient: true})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if _, err := Append(nil, v); err != ErrNoCanonicalForm {
			t.Errorf("%s: want ErrNoCanonicalForm, got %v", src, err)
		}
	}
}

// TestAppendCut: the canonical form minus the cut equals the canonical
// form of the object without that member, wherever the member sorts.
func TestAppendCut(t *testing.T) {
	for _, src := range []string{
		`{"b":1,"hash":"x","z":[1]}`, `{"hash":"x","z":2}`, `{"a":1,"hash":"x"}`, `{"hash":"x"}`, `{"a":{"hash":1}}`,
	} {
		v, err := strictjson.Parse([]byte(src), strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := Buffer{B: []byte("prefix")}
		from, to, err := b.AppendCut(v, "hash")
		if err != nil {
			t.Fatal(err)
		}
		full := b.B
		rest := *v // the reference: the object rebuilt without "hash"
		rest.Members = nil
		for _, m := range v.Members {
			if m.Key != "hash" {
				rest.Members = append(rest.Members, m)
			}
		}
		var without Buffer
		without.Append(&rest)
		got := string(full[6:])
		if from >= 0 {
			got = string(full[6:from]) + string(full[to:])
		}
		if got != string(without.B) {
			t.Errorf("%s: cut gives %s, want %s", src, got, without.B)
		}
	}
}
