package review_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

// TestCollectedSameAsRead: the review made from the steps the verifier
// handed over (one parse) is the review made by reading the record again,
// for sound records, a refused one, and one the verifier stops early.
func TestCollectedSameAsRead(t *testing.T) {
	t.Parallel()
	big, err := reviewtest.Big(3000)
	if err != nil {
		t.Fatal(err)
	}
	session, _ := reviewtest.Record(reviewtest.Session)
	broken := bytes.Replace(session, []byte("make lint"), []byte("make fmt"), 1)
	cut := bytes.Replace(session, []byte(`"seq":3,`), []byte(`"seq":"3",`), 1)
	for name, data := range map[string][]byte{"session": session, "big": big, "chain broken": broken, "shape refused": cut} {
		var col review.Collector
		res := record.Verify(data, record.Options{EachStep: col.Step, Top: col.Top})
		if want := map[string]string{"chain broken": "CHAIN_BROKEN", "shape refused": "SHAPE"}[name]; string(res.Code) != want {
			t.Fatalf("%s: verdict %q %s, want %q", name, res.Code, res.Detail, want)
		}
		got, err := review.FromCollected(&col, data, res, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := review.FromRecord(data, record.Verify(data, record.Options{}), false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Errorf("%s (%s): the collected review differs from the one read again", name, res.Code)
		}
	}
}
