package evidence

import (
	"testing"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/strictjson"
)

func sum(t *testing.T, text string) string {
	v, err := strictjson.Parse([]byte(text), strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := digest.Body(v, []byte(text))
	return s
}

// TestHarnessAdded: an Edit input the hooks saw with replace_all added
// matches the transcript's input without it; anything else does not.
func TestHarnessAdded(t *testing.T) {
	model := []byte(` {"file_path":"/w/a","old_string":"x","new_string":"y"} `)
	hooks := sum(t, `{"file_path":"/w/a","old_string":"x","new_string":"y","replace_all":false}`)
	if f, ok := harnessAdded("Edit", model, hooks); !ok || len(f) != 1 || f[0] != "replace_all" {
		t.Fatalf("%v %v", f, ok)
	}
	if _, ok := harnessAdded("Edit", model, sum(t, `{"file_path":"/w/a","old_string":"x","new_string":"z","replace_all":false}`)); ok {
		t.Fatal("a changed input passed for a normalized one")
	}
	if _, ok := harnessAdded("Write", model, hooks); ok {
		t.Fatal("Write has no normalization")
	}
	if f := addable("Edit", []byte(`{"replace_all":true}`)); len(f) != 0 {
		t.Fatalf("present field listed: %v", f)
	}
	if _, ok := harnessAdded("Edit", []byte(`{}`), sum(t, `{"replace_all":false}`)); !ok {
		t.Fatal("empty input")
	}
}
