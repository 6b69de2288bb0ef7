package strictjson_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// FuzzParse: whatever the strict reader accepts, encoding/json also calls
// valid (the strict reader is never looser about syntax); canonicalization
// is idempotent; lenient parsing never fails where strict parsing succeeds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,-0,1e400,"\ud800"],"b":{"c":null,"d":true}}`, `"\u00e9\uD83D\uDE00"`, `[1.5e-7,123456789012345678901234567890]`, `{"a":1,"a":2}`, `[1,]`, "\xef\xbb\xbf{}", `{"x":"y"} x`} {
		f.Add([]byte(s))
	}
	var files []string
	if dir, ok := corpora.Find("corpora/jsontestsuite"); ok {
		files, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	}
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil && len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := strictjson.Parse(data, strictjson.Options{MaxDepth: format.MaxDepth})
		if _, lerr := strictjson.Parse(data, strictjson.Options{MaxDepth: format.MaxDepth, Lenient: true}); err == nil && lerr != nil {
			t.Fatalf("lenient refused what strict accepted: %v", lerr)
		}
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("strict reader accepted what encoding/json calls invalid: %q", data)
		}
		c1, err := jcs.Append(nil, v)
		if err != nil {
			return // numbers outside double range have no canonical form
		}
		v2, err := strictjson.Parse(c1, strictjson.Options{})
		if err != nil {
			t.Fatalf("canonical output does not parse: %q: %v", c1, err)
		}
		c2, err := jcs.Append(nil, v2)
		if err != nil || !bytes.Equal(c1, c2) {
			t.Fatalf("canonicalization not idempotent: %q vs %q (%v)", c1, c2, err)
		}
	})
}

// TestParseLines: lines parse as they would alone, memory reuse included.
func TestParseLines(t *testing.T) {
	data := []byte("{\"a\":[1,2,{\"b\":\"x\"}]}\n[\"y\",{\"c\":null}]\n\"z\"\n")
	var got []string
	err := strictjson.ParseLines(data, strictjson.Options{}, func(n int, v *strictjson.Value, text []byte) error {
		alone, err := strictjson.Parse(text, strictjson.Options{})
		if err != nil {
			return err
		}
		a, _ := jcs.Append(nil, v)
		b, _ := jcs.Append(nil, alone)
		if !bytes.Equal(a, b) {
			t.Errorf("line %d: %s vs %s", n, a, b)
		}
		got = append(got, string(a))
		return nil
	})
	if err != nil || len(got) != 3 {
		t.Fatalf("%v %v", err, got)
	}
	if err := strictjson.ParseLines([]byte("{}\n{\n"), strictjson.Options{}, func(int, *strictjson.Value, []byte) error { return nil }); err == nil || err.Error()[:7] != "line 2:" {
		t.Fatalf("want a line 2 error, got %v", err)
	}
}
