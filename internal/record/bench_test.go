package record_test

import (
	"os"
	"sync"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

var bigRecord = sync.OnceValue(func() []byte {
	base := baseSteps()
	steps := make([]chain.Step, 0, 100000)
	for i := 0; i < 100000; i++ {
		steps = append(steps, base[i%len(base)])
	}
	return assemble(steps, fixtureKey("fixture"))
})

// BenchmarkVerify100k: verifying a 100,000-step record in process.
func BenchmarkVerify100k(b *testing.B) {
	rec := bigRecord()
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := record.Verify(rec, record.Options{}); !r.OK {
			b.Fatal(r.Detail)
		}
	}
}

// BenchmarkParse100k isolates the strict reader.
func BenchmarkParse100k(b *testing.B) {
	rec := bigRecord()
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := strictjson.Parse(rec, strictjson.Options{MaxDepth: format.MaxDepth}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
