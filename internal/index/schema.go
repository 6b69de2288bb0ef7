package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The one schema, written for SQLite and for MariaDB/MySQL from the same
// tables (render): a column's type is portable SQL, and every index is
// named here once. Each documented query (docs/index.md) walks one of
// these indexes in order, so a page costs the same at 10,000 sessions as
// at 100 (TestPlansUseIndexes, BenchmarkSearch).

type column struct{ name, typ string }

type table struct {
	name    string
	columns []column
	key     []string  // the primary key
	indexes []indexOn // secondary indexes
}

type indexOn struct {
	name    string
	columns []string
}

// Text columns are bounded VARCHARs: MySQL indexes only bounded text, and
// a key of (tenant, developer, start, id) stays under InnoDB's 3072 bytes
// in utf8mb4.
var schema = []table{
	{
		name: "sessions",
		columns: []column{
			{"tenant", "VARCHAR(64) NOT NULL"},
			{"id", "VARCHAR(128) NOT NULL"},
			{"developer", "VARCHAR(191) NOT NULL"},
			{"machine", "VARCHAR(191) NOT NULL"},
			{"repo", "VARCHAR(191) NOT NULL"},
			{"cwd", "VARCHAR(1024) NOT NULL"},
			{"harness", "VARCHAR(128) NOT NULL"},
			{"start_ms", "BIGINT NOT NULL"},
			{"end_ms", "BIGINT NOT NULL"},
			{"steps", "BIGINT NOT NULL"},
			{"level", "VARCHAR(16) NOT NULL"},
			{"policy", "VARCHAR(64) NOT NULL"},
			{"ended", "SMALLINT NOT NULL"},
			{"verdict", "VARCHAR(64) NOT NULL"},
			{"lost", "BIGINT NOT NULL"},
			{"unsent", "BIGINT NOT NULL"},
			{"refused", "BIGINT NOT NULL"},
			{"outage", "SMALLINT NOT NULL"},
			{"tombstoned", "SMALLINT NOT NULL"},
			{"commits", "TEXT NOT NULL"},
			{"tools", "TEXT NOT NULL"},
			{"decisions", "TEXT NOT NULL"},
		},
		key: []string{"tenant", "id"},
		indexes: []indexOn{
			{"sessions_by_start", []string{"tenant", "start_ms", "id"}},
			{"sessions_by_developer", []string{"tenant", "developer", "start_ms", "id"}},
			{"sessions_by_repo", []string{"tenant", "repo", "start_ms", "id"}},
			{"sessions_by_level", []string{"tenant", "level", "start_ms", "id"}},
			{"sessions_by_outage", []string{"tenant", "outage", "start_ms", "id"}},
			{"sessions_by_open", []string{"tenant", "ended", "end_ms", "id"}},
			{"sessions_by_end", []string{"tenant", "tombstoned", "end_ms", "id"}},
			{"sessions_last_seen", []string{"tenant", "developer", "end_ms"}},
			{"sessions_by_end_ms", []string{"tenant", "end_ms", "id"}},
			{"sessions_by_steps", []string{"tenant", "steps", "id"}},
		},
	},
	{
		// One row per commit, tool and gate decision a session names:
		// field is "commit", "tool" or "decision".
		name: "session_terms",
		columns: []column{
			{"tenant", "VARCHAR(64) NOT NULL"},
			{"field", "VARCHAR(16) NOT NULL"},
			{"term", "VARCHAR(191) NOT NULL"},
			{"start_ms", "BIGINT NOT NULL"},
			{"id", "VARCHAR(128) NOT NULL"},
		},
		key: []string{"tenant", "field", "term", "start_ms", "id"},
		indexes: []indexOn{
			{"terms_of_session", []string{"tenant", "id", "field", "term"}},
		},
	},
	{
		// What an admin set and a reindex cannot recompute: kept apart
		// from the tables a reindex rebuilds.
		name: "retention",
		columns: []column{
			{"tenant", "VARCHAR(64) NOT NULL"},
			{"keep_days", "BIGINT NOT NULL"},
			{"set_by", "VARCHAR(191) NOT NULL"},
			{"set_ms", "BIGINT NOT NULL"},
		},
		key: []string{"tenant"},
	},
	{
		name: "holds",
		columns: []column{
			{"tenant", "VARCHAR(64) NOT NULL"},
			{"id", "VARCHAR(128) NOT NULL"},
			{"held_by", "VARCHAR(191) NOT NULL"},
			{"reason", "VARCHAR(1024) NOT NULL"},
			{"held_ms", "BIGINT NOT NULL"},
		},
		key: []string{"tenant", "id"},
	},
}

// rebuilt are the tables Reindex empties and fills again.
var rebuilt = []string{"sessions", "session_terms"}

// render returns the statements that create the schema on engine, each
// safe to run again.
func render(e engine) []string {
	var out []string
	for _, t := range schema {
		var b strings.Builder
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (", t.name)
		for _, c := range t.columns {
			fmt.Fprintf(&b, "%s %s, ", c.name, c.typ)
		}
		fmt.Fprintf(&b, "PRIMARY KEY (%s)", strings.Join(t.key, ", "))
		if e == MySQL {
			// MySQL has no CREATE INDEX IF NOT EXISTS: the indexes are
			// declared with the table.
			for _, ix := range t.indexes {
				fmt.Fprintf(&b, ", INDEX %s (%s)", ix.name, strings.Join(ix.columns, ", "))
			}
			b.WriteString(") DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")
		} else {
			b.WriteString(") WITHOUT ROWID")
		}
		out = append(out, b.String())
		if e == SQLite {
			for _, ix := range t.indexes {
				out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ix.name, t.name, strings.Join(ix.columns, ", ")))
			}
		}
	}
	return out
}

// addIndexes gives a MySQL table made before one of its indexes was
// named here the indexes it lacks: CREATE TABLE IF NOT EXISTS leaves an
// old table as it was (SQLite's CREATE INDEX IF NOT EXISTS needs no
// help).
func addIndexes(ctx context.Context, db *sql.DB) error {
	for _, t := range schema {
		for _, ix := range t.indexes {
			var n int
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ?", t.name, ix.name).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				continue
			}
			if _, err := db.ExecContext(ctx, fmt.Sprintf("ALTER TABLE %s ADD INDEX %s (%s)", t.name, ix.name, strings.Join(ix.columns, ", "))); err != nil {
				return err
			}
		}
	}
	return nil
}
