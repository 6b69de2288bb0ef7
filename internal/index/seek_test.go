package index

import (
	"context"
	"errors"
	"testing"
)

// TestSeekOrWalk: a search runs detached from its context only where
// the index serves every filter (Search); one that checks a filter on
// the rows it walks, or walks past a sort's ties after a cursor, keeps
// it, and ends with it.
func TestSeekOrWalk(t *testing.T) {
	x := &Index{e: SQLite}
	walks := map[string]bool{"developer and tool": true, "by steps": true, "by steps, page 2": true,
		"by developer, page 2": true, "by end, page 2": true, "by repository": true, "by repository, page 2": true}
	qs := DocumentedQueries("acme")
	qs["commit since"] = Query{Tenant: "acme", Commit: "c1", SinceMS: 1, UntilMS: 2}
	qs["by end of d1"] = Query{Tenant: "acme", Sort: SortEnd, Developer: "d1"}
	qs["by end since"] = Query{Tenant: "acme", Sort: SortEnd, SinceMS: 1}
	qs["tool of d1"] = Query{Tenant: "acme", Tool: "Bash", Developer: "d1"}
	walks["by end of d1"], walks["by end since"], walks["tool of d1"] = true, true, true
	for name, q := range qs {
		p, err := x.planFor(q)
		if err != nil {
			t.Fatal(name, err)
		}
		if p.seek == walks[name] {
			t.Errorf("%s: seek %v, want %v", name, p.seek, !walks[name])
		}
	}
	for name := range walks {
		if _, ok := qs[name]; !ok {
			t.Errorf("%s: no such query", name)
		}
	}

	engines(t, func(t *testing.T, x *Index) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for _, name := range []string{"newest", "developer and tool"} {
			if _, err := x.Search(ctx, qs[name]); !errors.Is(err, context.Canceled) {
				t.Errorf("%s, its context ended: %v, want %v", name, err, context.Canceled)
			}
		}
	})
}
