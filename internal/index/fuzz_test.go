package index

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzSearch: whatever a search's query parameters say (as the server's
// QueryOf reads them: since/until by ParseTime, limit a number, the rest
// verbatim), Search answers a page or a typed refusal (ErrBadQuery,
// ErrBadCursor), never a database error or a row of another tenant, and
// its SQL binds every value it was given.
func FuzzSearch(f *testing.F) {
	f.Add("dev1", "", "", "", "", "", "2026-01-01", "2025-01-01", "50", "")
	f.Add("' OR 1=1 --", "r%", "_", "Bash", "allow", "L2", "", "", "500", "")
	f.Add("", "", "", "", "", "", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "501", "MTIzLg")
	f.Add("", "", "", "", "", "", "1970-01-01", "", "-1", "OTIyMzM3MjAzNjg1NDc3NTgwNy5zLTE")
	f.Add("", "", "", "", "", "", "", "", "99999999999999999999", "!!!")
	x, err := Open(context.Background(), "sqlite", filepath.Join(f.TempDir(), "index.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { x.Close() })
	if err := x.Put(context.Background(), &Session{Tenant: "other", ID: "s-other", Developer: "dev1", Repo: "r", StartMS: 1}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, dev, repo, commit, tool, decision, level, since, until, limit, cursor string) {
		q := Query{Tenant: "acme", Developer: dev, Repo: repo, Commit: commit, Tool: tool, Decision: decision, Level: level, Cursor: cursor}
		if q.SetBounds(since, until) != nil {
			return
		}
		if limit != "" {
			n, err := strconv.Atoi(limit)
			if err != nil {
				return
			}
			q.Limit = n
		}
		if p, err := x.planFor(q); err == nil {
			if n := strings.Count(p.sql, "?"); n != len(p.args) {
				t.Fatalf("%d placeholders, %d values: %s", n, len(p.args), p.sql)
			}
		}
		pg, err := x.Search(context.Background(), q)
		if err != nil {
			if !errors.Is(err, ErrBadQuery) && !errors.Is(err, ErrBadCursor) {
				t.Fatalf("%+v: %v", q, err)
			}
			return
		}
		for _, s := range pg.Sessions {
			if s.Tenant != "acme" {
				t.Fatalf("%+v: a session of tenant %q", q, s.Tenant)
			}
		}
	})
}
