package index

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Query is a search: every filter that is set must hold. Sessions come
// in Sort's order (newest first by default: start, then id, descending,
// a stable order), Limit at a time; Cursor, when set, continues after
// the page that returned it, in the same order.
type Query struct {
	Tenant    string
	Developer string
	Repo      string
	Commit    string
	Tool      string
	Decision  string
	Level     string
	SinceMS   int64 // sessions started at or after (0: no bound, unless SinceSet)
	UntilMS   int64 // sessions started before (0: no bound, unless UntilSet)
	Limit     int   // 0: DefaultLimit; at most MaxLimit
	Cursor    string
	Sort      string // one of Sorts; "": SortNewest

	// SinceSet and UntilSet make SinceMS and UntilMS bounds even at 0,
	// the epoch (SetBounds sets them for a bound that is given).
	SinceSet, UntilSet bool
}

// The orders a search can come in, each an index's order walked from
// one end (no sort after the read), ties cut by id.
const (
	SortNewest    = "newest"    // start, latest first (the default)
	SortOldest    = "oldest"    // start, earliest first
	SortEnd       = "end"       // the last step's time, latest first
	SortSteps     = "steps"     // most steps first
	SortDeveloper = "developer" // developer A to Z, each one's sessions earliest first
	SortRepo      = "repo"      // repository A to Z, each one's sessions earliest first
)

// Sorts are the orders, SortNewest first.
var Sorts = []string{SortNewest, SortOldest, SortEnd, SortSteps, SortDeveloper, SortRepo}

// order is how a sort other than by start walks: its index, the columns
// it orders by (the last is id), and whether it walks them descending.
type order struct {
	index string
	cols  []string
	desc  bool
}

var orders = map[string]order{
	SortEnd:       {"sessions_by_end_ms", []string{"end_ms", "id"}, true},
	SortSteps:     {"sessions_by_steps", []string{"steps", "id"}, true},
	SortDeveloper: {"sessions_by_developer", []string{"developer", "start_ms", "id"}, false},
	SortRepo:      {"sessions_by_repo", []string{"repo", "start_ms", "id"}, false},
}

// Page is one page of a search; Next is "" after the last.
type Page struct {
	Sessions []*Session
	Next     string
}

// The page sizes.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// ErrBadCursor is returned for a cursor no search returned.
var ErrBadCursor = errors.New("not a cursor this index returned")

// since and until report whether q has each bound.
func (q Query) since() bool { return q.SinceSet || q.SinceMS != 0 }
func (q Query) until() bool { return q.UntilSet || q.UntilMS != 0 }

// ErrBadQuery is returned for a limit out of range or a bad term.
var ErrBadQuery = errors.New("bad request")

// plan is how a query runs: the index it walks in order, and the SQL.
type plan struct {
	index string
	sql   string
	args  []any
	// seek: the index serves every filter, so the query reads at most
	// Limit+1 of its entries (and, after a cursor, the sessions that
	// start in the cursor's millisecond): see Search.
	seek bool
}

// planFor picks the index that serves q's most selective filter, in the
// order commit, developer, repo, decision, tool, level, none (the time
// order: a commit names one session or two, a developer's or a
// repository's sessions are a small share of a tenant's, most sessions
// use Bash); the other filters are checked on the rows that index walks.
func (x *Index) planFor(q Query) (plan, error) {
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit < 1 || q.Limit > MaxLimit {
		return plan{}, fmt.Errorf("%w: limit %d: want 1 to %d", ErrBadQuery, q.Limit, MaxLimit)
	}
	sort := q.Sort
	if sort == "" {
		sort = SortNewest
	}
	if _, ok := orders[sort]; !ok && sort != SortNewest && sort != SortOldest {
		return plan{}, fmt.Errorf("%w: sort %q: want one of %s", ErrBadQuery, q.Sort, strings.Join(Sorts, ", "))
	}
	if o, ok := orders[sort]; ok {
		return x.planWalk(q, sort, o)
	}
	curMS, curID := int64(math.MaxInt64), ""
	if q.Cursor != "" {
		var err error
		if sort == SortOldest {
			var key []any
			if key, err = parseSortCursor(q.Cursor, sort, order{cols: []string{"start_ms", "id"}}); err == nil {
				curMS, curID = key[0].(int64), key[1].(string)
			}
		} else {
			curMS, curID, err = parseCursor(q.Cursor)
		}
		if err != nil {
			return plan{}, err
		}
	}
	var p plan
	var where []string
	var args []any
	from := "sessions s"
	// t: the table whose index orders the walk (its start_ms and id).
	t := "s"
	term := func(field, value string) {
		p.index = "PRIMARY"
		from = "session_terms t " + x.hint("session_terms", p.index) + " JOIN sessions s ON s.tenant = t.tenant AND s.id = t.id"
		t = "t"
		where = append(where, "t.tenant = ?", "t.field = ?", "t.term = ?")
		args = append(args, q.Tenant, field, value)
	}
	column := func(index, col, value string) {
		p.index = index
		where, args = append(where, "s.tenant = ?", "s."+col+" = ?"), append(args, q.Tenant, value)
	}
	switch {
	case q.Commit != "":
		term(FieldCommit, q.Commit)
	case q.Developer != "":
		column("sessions_by_developer", "developer", q.Developer)
	case q.Repo != "":
		column("sessions_by_repo", "repo", q.Repo)
	case q.Decision != "":
		term(FieldDecision, q.Decision)
	case q.Tool != "":
		term(FieldTool, q.Tool)
	case q.Level != "":
		column("sessions_by_level", "level", q.Level)
	default:
		p.index = "sessions_by_start"
		where, args = append(where, "s.tenant = ?"), append(args, q.Tenant)
	}
	if t == "s" {
		from = "sessions s " + x.hint("sessions", p.index)
	}
	served := len(where)
	// Residual filters: checked on the rows the index walks.
	if q.Developer != "" && p.index != "sessions_by_developer" {
		where, args = append(where, "s.developer = ?"), append(args, q.Developer)
	}
	if q.Repo != "" && p.index != "sessions_by_repo" {
		where, args = append(where, "s.repo = ?"), append(args, q.Repo)
	}
	if q.Level != "" && p.index != "sessions_by_level" {
		where, args = append(where, "s.level = ?"), append(args, q.Level)
	}
	for _, f := range []struct{ field, term string }{{FieldCommit, q.Commit}, {FieldTool, q.Tool}, {FieldDecision, q.Decision}} {
		if f.term == "" || t == "t" && args[1] == f.field {
			continue
		}
		where = append(where, "EXISTS (SELECT 1 FROM session_terms u WHERE u.tenant = s.tenant AND u.id = s.id AND u.field = ? AND u.term = ?)")
		args = append(args, f.field, f.term)
	}
	p.seek = len(where) == served
	if q.since() {
		where, args = append(where, t+".start_ms >= ?"), append(args, q.SinceMS)
	}
	if q.until() {
		where, args = append(where, t+".start_ms < ?"), append(args, q.UntilMS)
	}
	dir := " DESC"
	if sort == SortOldest {
		dir = " ASC"
	}
	if q.Cursor != "" {
		// The keyset: a range on start_ms the index seeks to, and the
		// ties at the cursor's time cut by id.
		if sort == SortOldest {
			where = append(where, t+".start_ms >= ?", "("+t+".start_ms > ? OR "+t+".id > ?)")
		} else {
			where = append(where, t+".start_ms <= ?", "("+t+".start_ms < ? OR "+t+".id < ?)")
		}
		args = append(args, curMS, curMS, curID)
	}
	p.sql = "SELECT " + prefixed("s.", sessionColumns) + " FROM " + from + " WHERE " + strings.Join(where, " AND ") +
		" ORDER BY " + t + ".start_ms" + dir + ", " + t + ".id" + dir + " LIMIT " + strconv.Itoa(q.Limit+1)
	p.args = args
	return p, nil
}

// planWalk is the plan of a sort other than by start: it walks the
// sort's index over the tenant's sessions and checks every filter on
// the rows it walks (a filter that keeps few of them makes a page read
// many: the start orders seek by the filter instead).
func (x *Index) planWalk(q Query, sort string, o order) (plan, error) {
	where := []string{"s.tenant = ?"}
	args := []any{q.Tenant}
	for _, f := range []struct{ col, v string }{{"developer", q.Developer}, {"repo", q.Repo}, {"level", q.Level}} {
		if f.v != "" {
			where, args = append(where, "s."+f.col+" = ?"), append(args, f.v)
		}
	}
	for _, f := range []struct{ field, term string }{{FieldCommit, q.Commit}, {FieldTool, q.Tool}, {FieldDecision, q.Decision}} {
		if f.term != "" {
			where = append(where, "EXISTS (SELECT 1 FROM session_terms u WHERE u.tenant = s.tenant AND u.id = s.id AND u.field = ? AND u.term = ?)")
			args = append(args, f.field, f.term)
		}
	}
	if q.since() {
		where, args = append(where, "s.start_ms >= ?"), append(args, q.SinceMS)
	}
	if q.until() {
		where, args = append(where, "s.start_ms < ?"), append(args, q.UntilMS)
	}
	// Any filter is checked on the rows walked, and a cursor's ties on
	// the sort's first column (a developer's sessions, the sessions of
	// one step count) are walked past: a seek only without either.
	seek := len(where) == 1 && q.Cursor == ""
	cmp, dir := ">", " ASC"
	if o.desc {
		cmp, dir = "<", " DESC"
	}
	if q.Cursor != "" {
		key, err := parseSortCursor(q.Cursor, sort, o)
		if err != nil {
			return plan{}, err
		}
		// The keyset: the first column's range the index seeks to, then
		// (a, b, id) after the cursor's, written out column by column.
		where, args = append(where, "s."+o.cols[0]+" "+cmp+"= ?"), append(args, key[0])
		var or []string
		for i := range o.cols {
			var and []string
			for j := 0; j < i; j++ {
				and, args = append(and, "s."+o.cols[j]+" = ?"), append(args, key[j])
			}
			and, args = append(and, "s."+o.cols[i]+" "+cmp+" ?"), append(args, key[i])
			or = append(or, "("+strings.Join(and, " AND ")+")")
		}
		where = append(where, "("+strings.Join(or, " OR ")+")")
	}
	var by []string
	for _, c := range o.cols {
		by = append(by, "s."+c+dir)
	}
	return plan{index: o.index, args: args, seek: seek,
		sql: "SELECT " + prefixed("s.", sessionColumns) + " FROM sessions s " + x.hint("sessions", o.index) + " WHERE " + strings.Join(where, " AND ") +
			" ORDER BY " + strings.Join(by, ", ") + " LIMIT " + strconv.Itoa(q.Limit+1)}, nil
}

// hint names the index for the engine's planner: the plan is the
// query's, not the planner's guess from statistics (an index that just
// got big, a MariaDB that never ran ANALYZE).
func (x *Index) hint(table, index string) string {
	if x.e == MySQL {
		return "FORCE INDEX (" + index + ")"
	}
	if index == "PRIMARY" {
		return "" // SQLite's WITHOUT ROWID primary key is the table itself
	}
	return "INDEXED BY " + index
}

func prefixed(p, cols string) string {
	fs := strings.Split(cols, ", ")
	for i := range fs {
		fs[i] = p + fs[i]
	}
	return strings.Join(fs, ", ")
}

// Search runs q and returns one page. A query that walks its index
// checking filters on the rows it reads (it may read a tenant's every
// session) ends when ctx does, so that a client that leaves stops it. A
// seek, which reads at most a page, runs to its end unwatched: a
// context that can end costs each query a goroutine of database/sql's
// and the driver's watch of it (a handoff to another goroutine each,
// tens of µs on a loaded 2-core machine: BenchmarkSearch's MariaDB
// http/db went from 1.66-2.28 to 1.37-1.61, docs/index.md).
func (x *Index) Search(ctx context.Context, q Query) (Page, error) {
	p, err := x.planFor(q)
	if err != nil {
		return Page{}, err
	}
	if p.seek {
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		ctx = context.WithoutCancel(ctx)
	}
	rows, err := x.db.QueryContext(ctx, p.sql, p.args...)
	if err != nil {
		return Page{}, err
	}
	ss, err := scan(rows)
	if err != nil {
		return Page{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	var pg Page
	if len(ss) > limit {
		ss = ss[:limit]
		last := ss[limit-1]
		pg.Next = cursorOf(q.Sort, last)
	}
	pg.Sessions = ss
	return pg, nil
}

// A cursor is the last session's start and id, base64url: opaque to the
// client, checked when it comes back.
func cursor(ms int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(ms, 10) + "." + id))
}

func parseCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", ErrBadCursor
	}
	ms, id, ok := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || id == "" || len(id) > 128 {
		return 0, "", ErrBadCursor
	}
	return n, id, nil
}

// cursorOf is the cursor after s in sort's order: the start order's
// cursor is the one above (cursors given out before the sorts keep
// working); another's is base64url JSON, the sort's name then the
// session's values of its columns.
func cursorOf(sort string, s *Session) string {
	if sort == "" || sort == SortNewest {
		return cursor(s.StartMS, s.ID)
	}
	o, ok := orders[sort]
	if !ok {
		o = order{cols: []string{"start_ms", "id"}}
	}
	vals := []string{sort}
	for _, c := range o.cols {
		switch c {
		case "start_ms":
			vals = append(vals, strconv.FormatInt(s.StartMS, 10))
		case "end_ms":
			vals = append(vals, strconv.FormatInt(s.EndMS, 10))
		case "steps":
			vals = append(vals, strconv.FormatInt(s.Steps, 10))
		case "developer":
			vals = append(vals, s.Developer)
		case "repo":
			vals = append(vals, s.Repo)
		case "id":
			vals = append(vals, s.ID)
		}
	}
	b, _ := json.Marshal(vals)
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseSortCursor reads cursorOf's cursor for sort, its values typed as
// o's columns are; a cursor of another sort is refused.
func parseSortCursor(c, sort string, o order) ([]any, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	var vals []string
	if err != nil || len(b) > 1024 || json.Unmarshal(b, &vals) != nil || len(vals) != len(o.cols)+1 || vals[0] != sort {
		return nil, ErrBadCursor
	}
	key := make([]any, len(o.cols))
	for i, col := range o.cols {
		v := vals[i+1]
		switch col {
		case "start_ms", "end_ms", "steps":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, ErrBadCursor
			}
			key[i] = n
		default:
			if col == "id" && (v == "" || len(v) > 128) {
				return nil, ErrBadCursor
			}
			key[i] = v
		}
	}
	return key, nil
}

// CursorFor is the cursor of a page in sort's order that ended at s (for
// tests and benchmarks that start mid-way).
func CursorFor(sort string, s *Session) string { return cursorOf(sort, s) }

// CursorAt is the cursor of a page that ended at a session started at ms
// with id (for tests and benchmarks that start mid-way).
func CursorAt(ms int64, id string) string { return cursor(ms, id) }
