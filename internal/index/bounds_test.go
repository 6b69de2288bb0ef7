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

// TestBoundsExtremes: bounds at the ends of what a time can say (year 0,
// year 9999, since after until) search without error on each engine and
// each sort; what is not a time (a negative or five-digit year, 30
// February, hour 24, NUL, a megabyte) is
// ErrBadQuery, never an error of the database.
func TestBoundsExtremes(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, &Session{Tenant: "acme", ID: "s-1", Developer: "d", Repo: "r", StartMS: day, EndMS: day}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			since, until string
			n            int
		}{
			{"0000-01-01", "", 1},
			{"", "0000-01-01T00:00:00Z", 0},
			{"9999-12-31T23:59:59.999999999Z", "", 0},
			{"", "9999-12-31", 1},
			{"0000-01-01", "9999-12-31T23:59:59.999+23:59", 1},
			{"1970-01-03", "1970-01-01", 0}, // since after until
		} {
			for _, sort := range append([]string{""}, Sorts...) {
				q := Query{Tenant: "acme", Sort: sort}
				if err := q.SetBounds(c.since, c.until); err != nil {
					t.Fatalf("since %q until %q: %v", c.since, c.until, err)
				}
				pg, err := x.Search(ctx, q)
				if err != nil || len(pg.Sessions) != c.n {
					t.Errorf("since %q until %q, sort %q: %d sessions, %v (want %d)", c.since, c.until, sort, len(pg.Sessions), err, c.n)
				}
			}
		}
	})
	for _, bad := range []string{"-0001-01-01", "10000-01-01", "2026-02-30", "2026-13-01", "2026-01-01T24:00:00Z",
		"2026-01-01\x00", " 2026-01-01", "2026-1-1", string(make([]byte, 1<<20))} {
		var q Query
		if err := q.SetBounds(bad, ""); !errors.Is(err, ErrBadQuery) {
			t.Errorf("since=%.40q: %v, want ErrBadQuery", bad, err)
		}
		if err := q.SetBounds("", bad); !errors.Is(err, ErrBadQuery) {
			t.Errorf("until=%.40q: %v, want ErrBadQuery", bad, err)
		}
	}
}
