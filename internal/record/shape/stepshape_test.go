package shape

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// librarySaysStepOK is the authority: $defs/step through the schema library.
func librarySaysStepOK(t testing.TB, v *strictjson.Value) bool {
	sch, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	return sch.step.Validate(toAny(v)) == nil
}

// stepVariants takes a good step and makes wrong ones: every field set to
// values of every type, removed, or joined by an extra key.
func stepVariants(good *strictjson.Value) []strictjson.Value {
	values := []strictjson.Value{
		strictjson.NullValue(), strictjson.Bool(true), strictjson.Int(0), strictjson.Int(-1), {Kind: strictjson.Number, Str: "-0"},
		strictjson.Str(""), strictjson.Str("exec"), strictjson.Str("2026-01-01T00:00:00Z"), strictjson.Str("2026-13-01T00:00:00Z"),
		strictjson.Str("2026-01-01T24:00:00Z"), strictjson.Str("2026-01-01T00:00:00.1234567890Z"), strictjson.Str("2026-01-01t00:00:00Z"),
		strictjson.Str("2026-01-31T23:59:59.5Z"), strictjson.Str("2026-01-00T00:00:00Z"),
		strictjson.Str("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
		strictjson.Str("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"),
		strictjson.Str("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85"),
		strictjson.Arr(), strictjson.Arr(strictjson.Str("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")),
		strictjson.Arr(strictjson.Str("x")), strictjson.Obj(), strictjson.Obj(strictjson.Member{Key: "a", Value: strictjson.Int(1)}),
	}
	var out []strictjson.Value
	out = append(out, *good)
	for i := range good.Members {
		for _, val := range values {
			c := clone(good)
			c.Members[i].Value = val
			out = append(out, c)
		}
		c := clone(good)
		c.Members = append(c.Members[:i:i], c.Members[i+1:]...)
		out = append(out, c)
	}
	c := clone(good)
	c.Members = append(c.Members, strictjson.Member{Key: "extra", Value: strictjson.Int(1)})
	out = append(out, c, strictjson.Arr(), strictjson.Str("step"))
	return out
}

func clone(v *strictjson.Value) strictjson.Value {
	c := *v
	c.Members = append([]strictjson.Member(nil), v.Members...)
	return c
}

// TestStepShapeMirrorsSchema: on every step of every good fixture and on
// hundreds of broken variants, the code mirror and the schema library give
// the same verdict.
func TestStepShapeMirrorsSchema(t *testing.T) {
	files, _ := filepath.Glob("../../../testdata/records/good_*.json")
	checked := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		rec, err := strictjson.Parse(data, strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		steps := rec.Get("steps")
		for i := range steps.Items {
			for _, v := range stepVariants(&steps.Items[i]) {
				if got, want := stepShapeOK(&v), librarySaysStepOK(t, &v); got != want {
					b, _ := jcs.Append(nil, &v)
					t.Errorf("%s: mirror %v, schema %v for %s", filepath.Base(f), got, want, b)
				}
				checked++
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d variants checked", checked)
	}
	t.Logf("%d step variants: mirror and schema agree", checked)
}

// FuzzStepShape: any JSON value gets the same verdict from both.
func FuzzStepShape(f *testing.F) {
	f.Add([]byte(`{"at":"2026-03-01T10:00:00Z","data":{},"dossier":null,"hash":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","inputsSha256":[],"kind":"note","outputsSha256":[],"prev":null,"seq":0,"summary":""}`))
	f.Add([]byte(`{"seq":-0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := strictjson.Parse(data, strictjson.Options{MaxDepth: format.MaxDepth})
		if err != nil || Values(v) != "" {
			return // not a JSON value the shape check would see
		}
		if got, want := stepShapeOK(v), librarySaysStepOK(t, v); got != want {
			t.Fatalf("mirror %v, schema %v for %s", got, want, data)
		}
	})
}
