package strictjson_test

import (
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// FuzzShallowMatchesParse holds Shallow to Parse: the journal reads its
// last line with Shallow, so a line Parse refuses must be refused there
// too, and the top-level members read must be the same.
func FuzzShallowMatchesParse(f *testing.F) {
	for _, s := range []string{`{"seq":1,"hash":"h","data":{"a":1,"a":2}}`, `{"seq":1,"hash":"h","data":"\ud800"}`,
		`{"seq":1e999,"hash":"h"}`, `{"seq":1,"hash":"h"} {}`, `{"seq":1,"hash":"h","data":[1,`, `{"seq":1,"seq":2,"hash":"h"}`,
		`{"seq":1,"hash":"h","data":{"x":[{"y":{"a":"\udc00"}}]}}`, `{"seq":1,"hash":"h","d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := strictjson.Options{MaxDepth: format.MaxDepth}
		full, ferr := strictjson.Parse(data, opt)
		sh, serr := strictjson.Shallow(data, opt, nil)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("Parse err %v, Shallow err %v on %q", ferr, serr, data)
		}
		if ferr != nil || full.Kind != strictjson.Object {
			return
		}
		if len(full.Members) != len(sh.Members) {
			t.Fatalf("members %d vs %d", len(full.Members), len(sh.Members))
		}
		for i, m := range full.Members {
			s := sh.Members[i]
			if m.Key != s.Key || m.Value.Kind != s.Value.Kind || m.Value.Str != s.Value.Str {
				t.Fatalf("member %d: %q %v %q vs %q %v %q", i, m.Key, m.Value.Kind, m.Value.Str, s.Key, s.Value.Kind, s.Value.Str)
			}
		}
	})
}
