package review_test

import (
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// FuzzReview: any bytes, as a record or as an in-progress file, give a
// review or an error, never a panic.
func FuzzReview(f *testing.F) {
	rec, _ := reviewtest.Record(reviewtest.Session[:6])
	f.Add(rec)
	f.Add([]byte(`{"format":"logbook/in-progress@0","session":"s"}` + "\n" + `{"seq":0,"prev":null,"data":{"event":"PostToolUse","toolUseId":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := review.FromRecord(data, record.Verify(data, record.Options{}), false)
		if err == nil {
			_ = review.WriteText(discard{}, r, review.TextOptions{Width: 80})
			review.Filter(r.Turns, "gaps")
		}
		if r, err := review.FromInProgress(data); err == nil {
			_ = review.WriteText(discard{}, r, review.TextOptions{})
		}
	})
}
