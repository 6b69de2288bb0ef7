package jsvalue

import (
	"bytes"
	"testing"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// FuzzParse: the reader never panics, its canonical output is always JSON
// it reads back to the same canonical bytes, and on every input the strict
// reader also accepts, the strict JCS bytes and these are equal.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":2,"10":3,"9":4,"__proto__":{"x":1}}`, `{"\u20ac":1,"\ud83d\ude00":2,"\uff5e":3,"a":4}`,
		`["<a>&","\u2028\u2029","\u007f","\u0000\u001f\b\f\n\r\t","\ud800","\udc00x","\"\\/"]`,
		`[1.0,1e21,1e-7,0.000001,1e20,-0,0.30000000000000004,9007199254740993,5e-324,1.7976931348623157e308,1E400,-1e400,100,1.5e-10,12.34e5]`,
		`{"a":1,"a":2}`, `"café üß 中"`, `[true,false,null,{},[]]`, "\xef\xbb\xbf{}", "\"\xff\xe2\x82\"", `{"\ud800":1,"\ud800\udc00":2,"\udc00":3,"\uffff":4}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, _, err := Parse(data)
		if err != nil {
			return
		}
		canon := Canonical(v)
		w, _, err := Parse(canon)
		if err != nil {
			t.Fatalf("canonical output %q does not parse: %v", canon, err)
		}
		if again := Canonical(w); !bytes.Equal(again, canon) {
			t.Fatalf("canonical form not stable: %q then %q", canon, again)
		}
		sv, err := strictjson.Parse(data, strictjson.Options{MaxDepth: MaxDepth})
		if err != nil {
			return
		}
		strict, err := jcs.Append(nil, sv)
		if err != nil {
			return // e.g. 1E400: no canonical form under RFC 8785
		}
		if !bytes.Equal(strict, canon) {
			t.Fatalf("strict JCS %q != JS path %q for %q", strict, canon, data)
		}
	})
}
