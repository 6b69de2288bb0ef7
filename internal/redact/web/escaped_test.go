package web

import (
	"fmt"
	"slices"
	"testing"
)

// TestEscaped: each escaped part of a URL, decoded, with where each of
// its bytes is written; parts without escapes and text outside URLs are
// not given.
func TestEscaped(t *testing.T) {
	t.Parallel()
	s := `see https://u:p%40@h.example/a%20b/plain/c?q=a+b%3D&r=1;s=%7e#f=%41&g 'https://x/y%2Fz' and%20not`
	var got []string
	Escaped(s, func(dec string, at []int) {
		if len(at) != len(dec)+1 {
			t.Fatalf("%q: %d offsets", dec, len(at))
		}
		var src []string
		for i := range dec {
			src = append(src, s[at[i]:at[i+1]])
		}
		got = append(got, fmt.Sprintf("%q<-%q", dec, src))
	})
	want := []string{
		`"a b"<-["a" "%20" "b"]`,
		`"q=a+b="<-["q" "=" "a" "+" "b" "%3D"]`,
		`"q=a b="<-["q" "=" "a" "+" "b" "%3D"]`,
		`"s=~"<-["s" "=" "%7e"]`,
		`"f=A"<-["f" "=" "%41"]`,
		`"y/z"<-["y" "%2F" "z"]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
