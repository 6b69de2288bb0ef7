package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
)

// TestBrowserReviewGateNotes: on the gate fixtures, the page notes each
// call as logbook-review does (a denied call not run; a denied call that
// ran anyway, marked as bad), and neither lists a denied read under the
// files touched.
func TestBrowserReviewGateNotes(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	for _, name := range []string{"good_gated", "fail_DENIED_CALL_RAN_post", "good_audit_denied_ran"} {
		path := "../testdata/gate/" + name + ".json"
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		for _, tu := range want.Turns {
			for _, it := range tu.Items {
				if it.Call != nil {
					notes = append(notes, it.Call.ToolUseID+"="+it.Call.Note())
				}
			}
		}
		b.open(t, path)
		got, err := evalJS[[]string](b, `[...document.querySelectorAll('#review .call')].map((r) => {
			const n = r.querySelector('.callnote');
			return r.dataset.id + '=' + (n ? n.textContent : '');
		})`)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(notes, "|") {
			t.Errorf("%s: page notes %q, logbook-review %q", name, got, notes)
		}
		bad, err := evalJS[int](b, `document.querySelectorAll('#review .callnote.bad').length`)
		if wantBad := strings.Count(strings.Join(notes, "|"), review.NoteDeniedRan); err != nil || bad != wantBad {
			t.Errorf("%s: %d notes marked bad, want %d (%v)", name, bad, wantBad, err)
		}
		if sum := b.review(t).Summary; (len(want.Summary.Files) == 0) == strings.Contains(sum, "files") {
			t.Errorf("%s: page summary %q, logbook-review files %v", name, sum, want.Summary.Files)
		}
	}
	b.checkQuiet(t)
}
