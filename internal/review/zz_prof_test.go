package review_test

import (
	"os"
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
)

func TestZZProf(t *testing.T) {
	data, err := os.ReadFile("/tmp/rb/big.json")
	if err != nil {
		t.Skip()
	}
	res := record.Verify(data, record.Options{})
	r, err := review.FromRecord(data, res, false)
	if err != nil || !res.OK {
		t.Fatal(err, res)
	}
	var n int
	_ = review.WriteText(zzSink{&n}, r, review.TextOptions{})
}

type zzSink struct{ c *int }

func (d zzSink) Write(p []byte) (int, error) { *d.c += len(p); return len(p), nil }
