package review_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
)

// TestGateOnCallRow: a gate step's decision is shown on its call's row
// (text and JSON), not as a row of its own.
func TestGateOnCallRow(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/gate/good_gated.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.FromRecord(data, record.Verify(data, record.Options{}), false)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := review.WriteText(&b, r, review.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"policy deny (no-rm-rf): recursive force-remove", "policy deny (no-dotenv)", "policy allow"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "policy deny Bash") {
		t.Errorf("a gate step has a row of its own:\n%s", out)
	}
	n := 0
	for _, turn := range r.Turns {
		for _, it := range turn.Items {
			if it.Call != nil && it.Call.Gate() != nil {
				n++
			}
		}
	}
	if n != 3 {
		t.Errorf("%d calls carry a gate, want 3", n)
	}
	// The only read, of .env, was denied: it never ran, so it touched no
	// file (a fresh user found it listed under files).
	if len(r.Summary.Files) != 0 || strings.Contains(out, "\nfiles ") {
		t.Errorf("a denied call counted as touching a file: %v\n%s", r.Summary.Files, out)
	}
}
