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
