// Package sqlitecmp measures the two SQLite drivers the session index
// could embed, side by side in one run, on the index's own schema and
// queries (docs/index.md). It is a module of its own, so that the cgo
// driver it compares never enters the project's build:
//
//	cd internal/index/sqlitecmp && go test -run '^$' -bench . -benchtime 20x
package sqlitecmp

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // cgo: "sqlite3"
	_ "modernc.org/sqlite"          // pure Go: "sqlite"

	"github.com/logbook-project/logbook/internal/index"
)

var drivers = []struct{ name, driver, pragmas string }{
	{"modernc", "sqlite", "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_txlock=immediate"},
	{"mattn", "sqlite3", "?_journal_mode=WAL&_busy_timeout=10000&_synchronous=NORMAL&_txlock=immediate"},
}

// sessions are n entries of 100 steps each, as the feed folds them.
func sessions(n, from int) []*index.Session {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tools := []string{"Bash", "Read", "Edit", "Write", "Grep"}
	out := make([]*index.Session, 0, n)
	for i := from; i < from+n; i++ {
		f := index.NewFold(index.Header{ID: fmt.Sprintf("s-%07d", i), Cwd: fmt.Sprintf("/w/repo%d", i%50), Harness: "claude-code"}, "", fmt.Sprintf("d%d", i%200), "m", "server")
		start := base.Add(time.Duration(i) * time.Minute)
		for k := range 100 {
			st := index.Step{At: start.Add(time.Duration(k) * time.Second).Format(time.RFC3339), Kind: "exec", Event: "PreToolUse", Tool: tools[(i+k)%len(tools)]}
			if k == 10 {
				st = index.Step{At: st.At, Kind: "note", Event: "logbook.commit", Commit: fmt.Sprintf("c%07d", i)}
			}
			f.Add(st)
		}
		out = append(out, &f.S)
	}
	return out
}

// BenchmarkDrivers: a batch of 100 sessions put in one transaction (the
// feed's write), and a developer's newest page of 20 over 10,000
// sessions (a search), on each driver.
func BenchmarkDrivers(b *testing.B) {
	ctx := context.Background()
	for _, d := range drivers {
		db, err := sql.Open(d.driver, "file:"+filepath.Join(b.TempDir(), "index.db")+d.pragmas)
		if err != nil {
			b.Fatal(err)
		}
		ix, err := index.OpenDB(ctx, db, false)
		if err != nil {
			b.Fatal(err)
		}
		all := sessions(10000, 0)
		for i := 0; i < len(all); i += 1000 {
			if err := ix.Put(ctx, all[i:i+1000]...); err != nil {
				b.Fatal(err)
			}
		}
		next := 10000
		b.Run(d.name+"/put-100-sessions", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				batch := sessions(100, next)
				next += 100
				b.StartTimer()
				if err := ix.Put(ctx, batch...); err != nil {
					b.Fatal(err)
				}
			}
		})
		q := index.Query{Developer: "d7", Limit: 20}
		b.Run(d.name+"/search-developer", func(b *testing.B) {
			for b.Loop() {
				if pg, err := ix.Search(ctx, q); err != nil || len(pg.Sessions) != 20 {
					b.Fatal(len(pg.Sessions), err)
				}
			}
		})
		q = index.Query{Tool: "Edit", Limit: 20}
		b.Run(d.name+"/search-tool", func(b *testing.B) {
			for b.Loop() {
				if pg, err := ix.Search(ctx, q); err != nil || len(pg.Sessions) != 20 {
					b.Fatal(len(pg.Sessions), err)
				}
			}
		})
		ix.Close()
	}
}
