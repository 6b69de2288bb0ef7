package index

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestViewJSON: View.AppendJSON writes what encoding/json writes, byte
// for byte, for every field (each filled by reflection, so that a field
// added to View and not to AppendJSON fails here) and for strings that
// need escaping.
func TestViewJSON(t *testing.T) {
	hostile := []string{"", "plain", `"quoted"`, `back\slash`, "\x00\x01\x1f", "\b\f\n\r\t", "<a href='x'>&amp;</a>",
		"\u2028\u2029", "\xff\xfe not UTF-8", "é 日本 🙂", "\x7f", "s-000001"}
	var views []View
	for i, h := range hostile {
		var v View
		rv := reflect.ValueOf(&v).Elem()
		for f := range rv.NumField() {
			switch fv := rv.Field(f); fv.Kind() {
			case reflect.String:
				fv.SetString(hostile[(i+f)%len(hostile)] + h)
			case reflect.Int64:
				fv.SetInt(int64(i*1000003 - f*7919))
			case reflect.Bool:
				fv.SetBool((i+f)%2 == 0)
			case reflect.Slice:
				switch i % 3 {
				case 0: // nil: null
				case 1:
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				default:
					fv.Set(reflect.ValueOf([]string{h, hostile[(i+f)%len(hostile)], "Bash"}))
				}
			default:
				t.Fatalf("View.%s: a %s, which this test does not fill", rv.Type().Field(f).Name, fv.Kind())
			}
		}
		views = append(views, v)
	}
	for _, s := range fixture(5) {
		views = append(views, ViewOf(s))
	}
	for _, v := range views {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := string(v.AppendJSON([]byte("x"))); got != "x"+string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want.Bytes())
		}
	}
}

// FuzzViewJSON: AppendJSON against encoding/json on any strings, counts
// and lists (go test ./internal/index -run '^$' -fuzz FuzzViewJSON).
func FuzzViewJSON(f *testing.F) {
	f.Add("s-1", "acme", "dev1", "/w/proj\x00\u2028", "\xff\xfe<&>", int64(-1), true, "Bash\x7f", "\"\\")
	f.Add("", "", "", "", "", int64(0), false, "", "")
	f.Fuzz(func(t *testing.T, a, b, c, d, e string, n int64, ended bool, l1, l2 string) {
		v := View{ID: a, Tenant: b, Developer: c, Machine: d, Repo: e, Cwd: a + e, Harness: b + d, Start: c, End: d,
			Steps: n, Level: e, Policy: a, Ended: ended, Verdict: b, Lost: -n, Unsent: n / 3, Refused: n ^ 0x55,
			Tools: []string{l1, l2}, Decisions: []string{}}
		if ended {
			v.Commits = []string{l2}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := v.AppendJSON(nil); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("AppendJSON:\n%q\nencoding/json:\n%q", got, want.Bytes())
		}
	})
}
