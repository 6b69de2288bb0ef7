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

// TestReviewNamesFleetActors: the review of a fleet's record, made from
// the steps the verifier handed over (the streaming build, as
// logbook-review makes it) or read again, names the attested actor and
// the asserted user once each (they were missing from the streaming
// build's summary).
func TestReviewNamesFleetActors(t *testing.T) {
	t.Parallel()
	data, err := reviewtest.BigFleet(300)
	if err != nil {
		t.Fatal(err)
	}
	var col review.Collector
	res := record.Verify(data, record.Options{EachStep: col.Step, Top: col.Top})
	collected, err := review.FromCollected(&col, data, res, false)
	if err != nil {
		t.Fatal(err)
	}
	read, err := review.FromRecord(data, res, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*review.Review{"collected": collected, "read again": read} {
		s := r.Summary
		if len(s.Attested) != 1 || s.Attested[0] != "dev1 in acme (credential 3f2a9c)" || len(s.Asserted) != 1 || s.Asserted[0] != "alice" {
			t.Errorf("%s: attested %q, asserted %q; want dev1's credential and alice", name, s.Attested, s.Asserted)
		}
	}
}
