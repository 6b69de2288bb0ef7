package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// documented returns the SQL of each query docs/index.md lists, by name.
func (x *Index) documented(t testing.TB) map[string]plan {
	out := map[string]plan{}
	for name, q := range DocumentedQueries("acme") {
		p, err := x.planFor(q)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	out["coverage: last seen"] = plan{sql: x.lastSeenSQL(), args: []any{"acme", "d1"}}
	out["coverage: unended"] = plan{sql: x.unendedSQL(50), args: []any{"acme", int64(0)}}
	out["coverage: outages"] = plan{sql: x.outageSQL(50), args: []any{"acme", int64(0)}}
	return out
}

// explain returns the engine's plan, a line per row.
func (x *Index) explain(ctx context.Context, q string, args []any) ([]string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if x.e == MySQL {
		prefix = "EXPLAIN "
	}
	rows, err := x.db.QueryContext(ctx, prefix+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, c := range cols {
			fmt.Fprintf(&b, "%s=%s ", c, vals[i].String)
		}
		out = append(out, b.String())
	}
	return out, rows.Err()
}

// badPlan names what is wrong with a plan: a table scanned whole, or
// rows sorted after they were read (the order is not the index's).
func badPlan(e engine, plan []string) string {
	for _, row := range plan {
		if e == SQLite {
			// "SCAN s" alone reads every row; "SEARCH s USING INDEX …"
			// or "… USING PRIMARY KEY" seeks.
			if strings.Contains(row, "SCAN ") && !strings.Contains(row, "USING INDEX") && !strings.Contains(row, "USING COVERING INDEX") && !strings.Contains(row, "PRIMARY KEY") {
				return "a table scan"
			}
			if strings.Contains(row, "TEMP B-TREE") {
				return "a sort"
			}
			continue
		}
		if strings.Contains(row, "Select tables optimized away") {
			continue // MAX read from the index's end
		}
		if strings.Contains(row, "type=ALL ") || strings.Contains(row, "key= ") {
			return "a table scan"
		}
		if strings.Contains(row, "filesort") || strings.Contains(row, "temporary") {
			return "a sort"
		}
	}
	return ""
}
