package reviewcmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestReviewSaysDeniedCallRan: a record whose own gate steps deny a call
// that then ran (a PostToolUse or a PostToolUseFailure of it) is called
// OK by the review as by logbook-verify, but never silently: without
// --policy-key it says so right after the verdict, in text and in JSON,
// as logbook-verify does (verdict.DeniedRanWarning). A good gated
// record gets no such note.
func TestReviewSaysDeniedCallRan(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	for _, c := range []struct {
		file, want string
	}{
		{"fail_DENIED_CALL_RAN_post.json", "step 5: PostToolUse of Bash call toolu_2, which the gate at step 3 denied"},
		{"fail_DENIED_CALL_RAN_failure.json", "step 2: PostToolUseFailure of Bash call toolu_2, which the gate at step 0 denied"},
		{"good_gated.json", ""},
	} {
		path := "../../testdata/gate/" + c.file
		var text, stderr bytes.Buffer
		if code := run([]string{"--no-pager", "--color", "never", path}, &text, &stderr, env); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.file, code, stderr.String())
		}
		var js, stderr2 bytes.Buffer
		if code := run([]string{"--json", path}, &js, &stderr2, env); code != 0 {
			t.Fatalf("%s --json: exit %d: %s", c.file, code, stderr2.String())
		}
		var r struct {
			Notes []string `json:"notes"`
		}
		if err := json.Unmarshal(js.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(text.String(), "ran anyway") || strings.Contains(strings.Join(r.Notes, "\n"), "ran anyway")
		if c.want == "" {
			if said {
				t.Errorf("%s: a denied call that ran is said of a good record:\n%s", c.file, text.String())
			}
			continue
		}
		if !strings.Contains(text.String(), c.want) {
			t.Errorf("%s: the text does not say the denied call ran (%q):\n%s", c.file, c.want, text.String())
		}
		if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], c.want) {
			t.Errorf("%s: the JSON's first note is not that the denied call ran: %q", c.file, r.Notes)
		}
	}
}
