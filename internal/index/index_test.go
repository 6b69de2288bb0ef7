package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// open returns an empty index on each engine: SQLite always, MariaDB
// when $LOGBOOK_TEST_MYSQL_DSN names one.
func engines(t *testing.T, each func(t *testing.T, x *Index)) {
	t.Run("sqlite", func(t *testing.T) {
		x, err := Open(context.Background(), "sqlite", filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		each(t, x)
	})
	t.Run("mysql", func(t *testing.T) {
		x, err := Open(context.Background(), "mysql", testmysql.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		each(t, x)
	})
}

const day = 24 * 3600 * 1000

// fixture: session i of developer d(i%3), started at i days, with tools,
// a commit for the even ones, a deny for every third, an outage for every
// fifth, and a SessionEnd for all but the last two.
func fixture(n int) []*Session {
	var out []*Session
	for i := range n {
		f := NewFold(Header{ID: fmt.Sprintf("s-%03d", i), Cwd: fmt.Sprintf("/home/d%d/repo%d", i%3, i%2), Harness: "claude-code"}, "acme", fmt.Sprintf("d%d", i%3), "m1", "server")
		at := func(k int) string { return fmt.Sprintf("2026-01-%02dT00:00:%02dZ", 1+i, k) }
		f.Add(Step{At: at(0), Kind: "note", Event: "SessionStart"})
		f.Add(Step{At: at(1), Kind: "gate", Event: "PolicyGate", Tool: "Bash", Decision: map[bool]string{true: "deny", false: "allow"}[i%3 == 0], Policy: "p1"})
		f.Add(Step{At: at(2), Kind: "exec", Event: "PreToolUse", Tool: "Bash"})
		if i%2 == 0 {
			f.Add(Step{At: at(3), Kind: "note", Event: "logbook.commit", Commit: fmt.Sprintf("c%03d", i)})
		}
		if i%5 == 0 {
			f.Add(Step{At: at(4), Kind: "note", Event: "logbook.unsent", Count: 2})
		}
		if i < n-2 {
			f.Add(Step{At: at(5), Kind: "note", Event: "SessionEnd"})
			f.S.Verdict = VerdictSealed
		}
		out = append(out, &f.S)
	}
	return out
}

func ids(ss []*Session) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

func TestSearch(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, fixture(20)...); err != nil {
			t.Fatal(err)
		}
		// Another tenant's session is never found.
		other := fixture(1)[0]
		other.Tenant, other.ID = "other", "s-999"
		if err := x.Put(ctx, other); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			q    Query
			want []string
		}{
			{Query{Developer: "d1"}, []string{"s-019", "s-016", "s-013", "s-010", "s-007", "s-004", "s-001"}},
			{Query{Commit: "c004"}, []string{"s-004"}},
			{Query{Decision: "deny", Repo: "repo1"}, []string{"s-015", "s-009", "s-003"}},
			{Query{Tool: "Bash", Developer: "d2", Commit: "c008"}, []string{"s-008"}},
			{Query{Level: "server", SinceMS: ms("2026-01-18T00:00:00Z"), UntilMS: ms("2026-01-20T00:00:00Z")}, []string{"s-018", "s-017"}},
			{Query{Level: "logged"}, nil},
		} {
			c.q.Tenant = "acme"
			pg, err := x.Search(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(pg.Sessions); !slices.Equal(got, c.want) || pg.Next != "" {
				t.Errorf("%+v: %v next %q, want %v", c.q, got, pg.Next, c.want)
			}
		}
		// Pages of 3 walk every session once, newest first.
		var got []string
		q := Query{Tenant: "acme", Limit: 3}
		for pages := 0; ; pages++ {
			pg, err := x.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(pg.Sessions)...)
			if pg.Next == "" {
				break
			}
			q.Cursor = pg.Next
			if pages > 10 {
				t.Fatal("no end")
			}
		}
		if len(got) != 20 || got[0] != "s-019" || got[19] != "s-000" {
			t.Errorf("pages: %v", got)
		}
		s, err := x.Get(ctx, "acme", "s-010")
		if err != nil || s == nil {
			t.Fatal(s, err)
		}
		if !slices.Equal(s.Commits, []string{"c010"}) || !slices.Equal(s.Decisions, []string{"allow"}) || s.Unsent != 2 || !s.Ended || s.Steps != 6 || s.Repo != "repo0" {
			t.Errorf("s-010: %+v", s)
		}
		for _, bad := range []Query{{Cursor: "!!"}, {Cursor: "eA"}, {Limit: MaxLimit + 1}} {
			if _, err := x.Search(ctx, bad); !errors.Is(err, ErrBadCursor) && !errors.Is(err, ErrBadQuery) {
				t.Errorf("%+v: %v", bad, err)
			}
		}
	})
}

func ms(at string) int64 { n, _ := millis(at); return n }

func TestCoverage(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, fixture(20)...); err != nil {
			t.Fatal(err)
		}
		c, err := x.Coverage(ctx, CoverageQuery{Tenant: "acme", Developers: []string{"d0", "d1", "d2", "nobody"},
			SinceMS: ms("2026-01-20T00:00:00Z"), QuietMS: ms("2026-02-01T00:00:00Z")})
		if err != nil {
			t.Fatal(err)
		}
		var silent []string
		for _, s := range c.Silent {
			silent = append(silent, s.Developer)
		}
		// d0's last is s-018 (Jan 19), d2's s-017; d1's s-019 is Jan 20.
		if !slices.Equal(silent, []string{"d0", "d2", "nobody"}) || c.Silent[2].LastMS != 0 {
			t.Errorf("silent: %+v", c.Silent)
		}
		if got := ids(c.Unended); !slices.Equal(got, []string{"s-019", "s-018"}) {
			t.Errorf("unended: %v", got)
		}
		c, err = x.Coverage(ctx, CoverageQuery{Tenant: "acme", SinceMS: ms("2026-01-10T00:00:00Z")})
		if got := ids(c.Outages); err != nil || !slices.Equal(got, []string{"s-015", "s-010"}) {
			t.Errorf("outages: %v %v", got, err)
		}
	})
}

func TestRetention(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, fixture(20)...); err != nil {
			t.Fatal(err)
		}
		now := ms("2026-01-31T00:00:00Z")
		var deleted []string
		del := func(s *Session) error { deleted = append(deleted, s.ID); return nil }
		if _, err := x.Retain(ctx, "acme", now, del); !errors.Is(err, ErrNoPolicy) {
			t.Fatalf("no policy: %v", err)
		}
		if err := x.SetPolicy(ctx, Policy{Tenant: "acme", KeepDays: 25, SetBy: "admin"}); err != nil {
			t.Fatal(err)
		}
		if err := x.SetHold(ctx, Hold{Tenant: "acme", ID: "s-002", By: "legal", Reason: "case 7"}); err != nil {
			t.Fatal(err)
		}
		// Sessions 0-4 ended before Jan 6: s-002 is held, nothing goes.
		_, err := x.Retain(ctx, "acme", now, del)
		var he *HeldError
		if !errors.As(err, &he) || !slices.Equal(he.IDs, []string{"s-002"}) || len(deleted) != 0 {
			t.Fatalf("held: %v, deleted %v", err, deleted)
		}
		if ok, err := x.ReleaseHold(ctx, "acme", "s-002"); !ok || err != nil {
			t.Fatal(ok, err)
		}
		done, err := x.Retain(ctx, "acme", now, del)
		if err != nil || !slices.Equal(deleted, []string{"s-000", "s-001", "s-002", "s-003", "s-004"}) || len(done) != 5 {
			t.Fatalf("run: %v %v", deleted, err)
		}
		s, _ := x.Get(ctx, "acme", "s-000")
		if !s.Tombstone || s.Verdict != VerdictTombstoned {
			t.Errorf("s-000: %+v", s)
		}
		// A second run finds nothing more to delete.
		if done, err := x.Retain(ctx, "acme", now, del); len(done) != 0 || err != nil {
			t.Errorf("again: %v %v", ids(done), err)
		}
	})
}

// TestPlansUseIndexes: every documented query walks an index, in order
// (no scan of the table, no sort): the engine's own EXPLAIN says so.
func TestPlansUseIndexes(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		if err := x.Put(ctx, fixture(20)...); err != nil {
			t.Fatal(err)
		}
		for name, sql := range x.documented(t) {
			plan, err := x.explain(ctx, sql.sql, sql.args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if bad := badPlan(x.e, plan); bad != "" {
				t.Errorf("%s: %s\n%s\n%s", name, bad, sql.sql, strings.Join(plan, "\n"))
			}
		}
	})
}

// TestFoldRecord: the steps of a gated record, read as the feed reads
// them: the gate's decisions and policy, the tools, the end.
func TestFoldRecord(t *testing.T) {
	b, err := os.ReadFile("../../testdata/gate/good_gated.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := strictjson.Parse(b, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFold(Header{ID: "gate-fixture", Cwd: "/work"}, "", "", "", "server")
	for i := range v.Get("steps").Items {
		f.Add(StepOf(&v.Get("steps").Items[i]))
	}
	s := f.S
	if !slices.Equal(s.Decisions, []string{"allow", "deny"}) || !slices.Equal(s.Tools, []string{"Bash", "Read"}) || s.Steps != 7 ||
		s.Policy != "8f19dd075f47472c95de03bbca59314d1db91e3bab2834e9f5f272aa0af3510e" || s.Repo != "work" || s.StartMS != ms("2026-12-01T10:00:00Z") || s.EndMS != ms("2026-12-01T10:00:03Z") {
		t.Errorf("%+v", s)
	}
	// A commit note and the server's notes of lost events.
	for _, line := range []string{
		`{"at":"2026-12-01T10:00:04Z","kind":"note","data":{"event":"logbook.commit","commit":"797e9cd4ca8abbf8b55869a4df095bc0636e7a9d"}}`,
		`{"at":"2026-12-01T10:00:05Z","kind":"note","data":{"event":"logbook.lost","count":2,"reason":"refused"}}`,
		`{"at":"2026-12-01T10:00:05Z","kind":"note","data":{"event":"logbook.lost","count":3,"reason":"sequenceHole"}}`,
		`{"at":"2026-12-01T10:00:06Z","kind":"note","data":{"event":"logbook.unsent","count":4}}`,
		`{"at":"2026-12-01T10:00:07Z","kind":"note","data":{"event":"SessionEnd"}}`,
	} {
		v, err := strictjson.Parse([]byte(line), strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f.Add(StepOf(v))
	}
	s = f.S
	if !slices.Equal(s.Commits, []string{"797e9cd4ca8abbf8b55869a4df095bc0636e7a9d"}) || s.Refused != 2 || s.Lost != 3 || s.Unsent != 4 || !s.Ended || !s.Outage() {
		t.Errorf("%+v", s)
	}
}

// TestLongCwd: a payload's cwd longer than its column is clipped, not a
// failed entry.
func TestLongCwd(t *testing.T) {
	f := NewFold(Header{ID: "s", Cwd: "/" + strings.Repeat("é", 600), Harness: strings.Repeat("h", 200)}, "", "", "", "server")
	if err := f.S.Check(); err != nil || len(f.S.Cwd) > 1024 || !utf8.ValidString(f.S.Cwd) {
		t.Errorf("%d bytes: %v", len(f.S.Cwd), err)
	}
}

// TestPutNeverGoesBack: of two replicas' feeds, the one that read fewer
// steps and put last leaves the index as the other put it; a tombstoned
// entry replaces it whatever its steps, and no live one replaces that.
func TestPutNeverGoesBack(t *testing.T) {
	engines(t, func(t *testing.T, x *Index) {
		ctx := context.Background()
		later, earlier := *fixture(1)[0], *fixture(1)[0]
		earlier.Steps, earlier.Verdict, earlier.Tools = 2, VerdictOpen, []string{"Read"}
		if err := x.Put(ctx, &later); err != nil {
			t.Fatal(err)
		}
		if err := x.Put(ctx, &earlier); err != nil {
			t.Fatal(err)
		}
		got, err := x.Get(ctx, later.Tenant, later.ID)
		if err != nil || got.Steps != later.Steps || got.Verdict != later.Verdict || strings.Join(got.Tools, " ") != strings.Join(later.Tools, " ") {
			t.Fatalf("after an earlier state put last: %+v %v, want %d steps %s", got, err, later.Steps, later.Verdict)
		}
		earlier.Tombstone = true
		if err := x.Put(ctx, &earlier); err != nil {
			t.Fatal(err)
		}
		if got, err := x.Get(ctx, later.Tenant, later.ID); err != nil || !got.Tombstone || got.Steps != 2 {
			t.Fatalf("a tombstoned entry: %+v %v", got, err)
		}
		// A feed that read the session before its deletion (another
		// replica's) puts last: the entry stays tombstoned.
		if err := x.Put(ctx, &later); err != nil {
			t.Fatal(err)
		}
		if got, err := x.Get(ctx, later.Tenant, later.ID); err != nil || !got.Tombstone || got.Steps != 2 {
			t.Fatalf("a live state put after the tombstone: %+v %v", got, err)
		}
	})
}
