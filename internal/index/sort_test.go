package index

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
)

// TestSorts: each sort, paged 3 at a time through its cursors, gives
// every session once, in the order its definition says (ties cut by
// id), filtered where a filter is set; a cursor of one sort is refused
// by another, and an unknown sort is a bad query.
func TestSorts(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		all := fixture(20)
		if err := x.Put(ctx, all...); err != nil {
			t.Fatal(err)
		}
		want := map[string]func(a, b *Session) int{
			SortNewest: func(a, b *Session) int { return cmp.Or(cmp.Compare(b.StartMS, a.StartMS), cmp.Compare(b.ID, a.ID)) },
			SortOldest: func(a, b *Session) int { return cmp.Or(cmp.Compare(a.StartMS, b.StartMS), cmp.Compare(a.ID, b.ID)) },
			SortEnd:    func(a, b *Session) int { return cmp.Or(cmp.Compare(b.EndMS, a.EndMS), cmp.Compare(b.ID, a.ID)) },
			SortSteps:  func(a, b *Session) int { return cmp.Or(cmp.Compare(b.Steps, a.Steps), cmp.Compare(b.ID, a.ID)) },
			SortDeveloper: func(a, b *Session) int {
				return cmp.Or(cmp.Compare(a.Developer, b.Developer), cmp.Compare(a.StartMS, b.StartMS), cmp.Compare(a.ID, b.ID))
			},
			SortRepo: func(a, b *Session) int {
				return cmp.Or(cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.StartMS, b.StartMS), cmp.Compare(a.ID, b.ID))
			},
		}
		for _, sort := range Sorts {
			for _, q := range []Query{{Tenant: "acme"}, {Tenant: "acme", Developer: "d1"}, {Tenant: "acme", Tool: "Bash", Decision: "deny"}} {
				q.Sort, q.Limit = sort, 3
				var got []string
				for pages := 0; ; pages++ {
					if pages > 20 {
						t.Fatalf("%s: the cursors never end", sort)
					}
					pg, err := x.Search(ctx, q)
					if err != nil {
						t.Fatalf("%s: %v", sort, err)
					}
					got = append(got, ids(pg.Sessions)...)
					if pg.Next == "" {
						break
					}
					q.Cursor = pg.Next
				}
				var exp []*Session
				for _, s := range all {
					if (q.Developer == "" || s.Developer == q.Developer) && (q.Decision == "" || slices.Contains(s.Decisions, q.Decision)) {
						exp = append(exp, s)
					}
				}
				slices.SortFunc(exp, want[sort])
				if !slices.Equal(got, ids(exp)) {
					t.Errorf("%s %+v:\n got %v\nwant %v", sort, q, got, ids(exp))
				}
			}
		}
		pg, err := x.Search(ctx, Query{Tenant: "acme", Sort: SortSteps, Limit: 2})
		if err != nil || pg.Next == "" {
			t.Fatal(err)
		}
		for _, other := range []string{SortEnd, SortOldest, SortNewest} {
			if _, err := x.Search(ctx, Query{Tenant: "acme", Sort: other, Cursor: pg.Next}); !errors.Is(err, ErrBadCursor) {
				t.Errorf("a steps cursor given to %s: %v", other, err)
			}
		}
		if _, err := x.Search(ctx, Query{Tenant: "acme", Sort: "size"}); !errors.Is(err, ErrBadQuery) {
			t.Errorf("an unknown sort: %v", err)
		}
	})
}

// TestOldTableGetsIndexes: an index made before sessions_by_steps was
// named (CREATE TABLE IF NOT EXISTS leaves its table as it was) is given
// it when opened again: the steps order, which names its index to the
// engine, runs.
func TestOldTableGetsIndexes(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		drop := "DROP INDEX sessions_by_steps"
		if x.e == MySQL {
			drop += " ON sessions"
		}
		if _, err := x.db.ExecContext(ctx, drop); err != nil {
			t.Fatal(err)
		}
		if _, err := x.Search(ctx, Query{Tenant: "acme", Sort: SortSteps}); err == nil {
			t.Fatal("the steps order ran without its index")
		}
		y, err := OpenDB(ctx, x.db, x.e == MySQL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := y.Search(ctx, Query{Tenant: "acme", Sort: SortSteps}); err != nil {
			t.Errorf("reopened: %v", err)
		}
	})
}
