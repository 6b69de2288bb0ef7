package translog_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/testmysql"
	"github.com/logbook-project/logbook/internal/translog"
)

// BenchmarkAppend: leaves of a session checkpoint's size, queued from 16
// goroutines as the server queues them, each future resolved (sequenced,
// stored durably, integrated). appends/s is the figure docs/log.md gives.
func BenchmarkAppend(b *testing.B) {
	b.Run("posix", func(b *testing.B) { benchAppend(b, translog.Config{Dir: filepath.Join(b.TempDir(), "log")}) })
	b.Run("mysql", func(b *testing.B) {
		benchAppend(b, translog.Config{Driver: translog.MySQL, DSN: testmysql.DSN(b)})
	})
}

func benchAppend(b *testing.B, cfg translog.Config) {
	seed := make([]byte, 32)
	cfg.Origin, cfg.Key = fmt.Sprintf("bench.test/log/%d", time.Now().UnixNano()), ed25519.NewKeyFromSeed(seed)
	l, err := translog.Open(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close(context.Background())
	b.SetParallelism(8) // 16 goroutines on 2 cores
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var futs []func() error
		i := 0
		for pb.Next() {
			f := l.Add(context.Background(), leaf(i))
			futs = append(futs, func() error { _, err := f(); return err })
			i++
		}
		for _, f := range futs {
			if err := f(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "appends/s")
}
