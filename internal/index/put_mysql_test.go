package index

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/testmysql"
)

// TestPutConcurrentReplicas: replicas' feeds put new sessions into one
// MySQL index at once, each on its own connection pool. InnoDB answers
// some of those transactions with a deadlock (their DELETE's gap locks
// cross); Put retries them, and every entry lands.
func TestPutConcurrentReplicas(t *testing.T) {
	dsn := testmysql.DSN(t)
	const feeds, puts = 4, 25
	var xs []*Index
	for range feeds {
		x, err := Open(context.Background(), "mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		xs = append(xs, x)
	}
	var wg sync.WaitGroup
	errs := make(chan error, feeds*puts)
	for f, x := range xs {
		wg.Go(func() {
			for i := range puts {
				id := fmt.Sprintf("s-%02d-%03d", f, i)
				errs <- x.Put(context.Background(), &Session{ID: id, StartMS: int64(i), EndMS: int64(i), Steps: 2, Verdict: VerdictSealed, Ended: true})
			}
		})
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if err != nil {
			failed++
			t.Log(err)
		}
	}
	var n int
	if err := xs[0].db.QueryRow("SELECT COUNT(*) FROM sessions").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if failed != 0 || n != feeds*puts {
		t.Fatalf("%d puts failed, %d of %d entries", failed, n, feeds*puts)
	}
}
