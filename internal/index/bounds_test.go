package index

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestEpochBound: a bound given at the epoch (0 ms) is a bound, on each
// engine and each sort: until=1970-01-01 finds what started before it
// (it once meant no bound, finding everything), since=1970-01-01 what
// started at it or after (not a session of 1969). A bound that is not a
// time is ErrBadQuery.
func TestEpochBound(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, &Session{Tenant: "acme", ID: "s-1969", Developer: "d", Repo: "r", StartMS: -day, EndMS: -day},
			&Session{Tenant: "acme", ID: "s-epoch", Developer: "d", Repo: "r", StartMS: 0, EndMS: 0},
			&Session{Tenant: "acme", ID: "s-1970", Developer: "d", Repo: "r", StartMS: day, EndMS: day}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			since, until string
			want         []string
		}{
			{"", "1970-01-01", []string{"s-1969"}},
			{"1970-01-01", "", []string{"s-epoch", "s-1970"}},
			{"1970-01-01T00:00:00Z", "1970-01-01T00:00:00.001Z", []string{"s-epoch"}},
			{"", "", []string{"s-1969", "s-epoch", "s-1970"}},
		} {
			for _, sort := range append([]string{""}, Sorts...) {
				q := Query{Tenant: "acme", Sort: sort}
				if err := q.SetBounds(c.since, c.until); err != nil {
					t.Fatal(err)
				}
				pg, err := x.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, s := range pg.Sessions {
					got = append(got, s.ID)
				}
				slices.Sort(got)
				want := slices.Clone(c.want)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("since %q until %q, sort %q: %v, want %v", c.since, c.until, sort, got, want)
				}
			}
		}
	})
	var q Query
	if err := q.SetBounds("yesterday", ""); !errors.Is(err, ErrBadQuery) {
		t.Errorf("since=yesterday: %v, want ErrBadQuery", err)
	}
}
