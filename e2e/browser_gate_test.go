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
// ran anyway, marked as bad; a held call's gate is its resolution, naming
// the approver), and neither lists a denied read under the files touched.
func TestBrowserReviewGateNotes(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	for _, name := range []string{"good_gated", "fail_DENIED_CALL_RAN_post", "good_audit_denied_ran", "good_held"} {
		path := "../testdata/gate/" + name + ".json"
		rec, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := review.FromRecord(rec, record.Verify(rec, record.Options{}), false)
		if err != nil {
			t.Fatal(err)
		}
		var notes, gates []string
		for _, tu := range want.Turns {
			for _, it := range tu.Items {
				if it.Call != nil {
					notes = append(notes, it.Call.ToolUseID+"="+it.Call.Note())
					if g := it.Call.Gate(); g != nil {
						by := ""
						if g.Decision == "allow" {
							by = g.Approver // the lines name the approver of an approval
						}
						gates = append(gates, it.Call.ToolUseID+"="+g.Decision+"/"+by)
					}
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
		// A held call's gate is its resolution (docs/approvals.md), with
		// the approver: the same on the page.
		pageGates, err := evalJS[[]string](b, `[...document.querySelectorAll('#review .call')].filter((r) => r.querySelector('.gatenote')).map((r) => {
			const t = r.querySelector('.gatenote').textContent;
			const m = t.match(/approved by (\S+)/);
			return r.dataset.id + '=' + t.split(' ')[1] + '/' + (m ? m[1] : '');
		})`)
		if err != nil || strings.Join(pageGates, "|") != strings.Join(gates, "|") {
			t.Errorf("%s: page gates %q, logbook-review %q (%v)", name, pageGates, gates, err)
		}
		if name == "good_held" && !strings.Contains(strings.Join(gates, "|"), "toolu_5=allow/bob") {
			t.Errorf("good_held: the approved call's gate %q, want its resolution, approved by bob", gates)
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
