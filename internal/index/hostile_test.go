package index

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestSearchHostileTerms: filter values a client may put in a URL
// (invalid UTF-8, a NUL, a term over any column's width, SQL) are a page
// (empty) or a typed refusal on each engine, never the database's error
// (a 500 INDEX_ERROR on the route).
func TestSearchHostileTerms(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		for _, v := range []string{"\xff\xfe", "a\x00b", strings.Repeat("d", 5000), "' OR '1'='1", "😀", "\xed\xa0\x80"} {
			for _, q := range []Query{{Developer: v}, {Repo: v}, {Commit: v}, {Tool: v}, {Decision: v}, {Level: v}, {Developer: "d", Tool: v}} {
				q.Tenant = "acme"
				_, err := x.Search(context.Background(), q)
				if err != nil && !errors.Is(err, ErrBadQuery) {
					t.Errorf("%#v: %v", q, err)
				}
			}
			if _, err := x.Search(context.Background(), Query{Tenant: v}); err != nil && !errors.Is(err, ErrBadQuery) {
				t.Errorf("tenant %+q: %v", v, err)
			}
		}
	})
}
