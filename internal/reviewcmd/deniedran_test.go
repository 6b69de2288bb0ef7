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

// TestReviewSaysGateInputMismatch: a record whose own gate step decided on
// another input than its call's (a swapped hook binary showed the gate a
// harmless command) is refused GATE_INPUT_MISMATCH under --policy-key and,
// without it, said in the first note, in text and JSON, as logbook-verify
// says it (verdict.InputMismatchWarning).
func TestReviewSaysGateInputMismatch(t *testing.T) {
	t.Parallel()
	env := func(string) string { return "" }
	for _, c := range []struct{ file, want string }{
		{"fail_GATE_INPUT_MISMATCH_pre.json", "step 4: PreToolUse of Bash call toolu_2 digests input ad1686665270a1d1, its gate step 3 decided on 4cf29611a6693486"},
		{"fail_GATE_INPUT_MISMATCH_post.json", "step 5: PostToolUse of Bash call toolu_2 digests input ad1686665270a1d1, its gate step 3 decided on 4cf29611a6693486"},
	} {
		path := "../../testdata/gate/" + c.file
		var text, stderr bytes.Buffer
		if code := run([]string{"--no-pager", "--color", "never", "--policy-key", "../../testdata/gate/policy.key.pub", path}, &text, &stderr, env); code != 1 ||
			!strings.HasPrefix(text.String(), "REFUSED GATE_INPUT_MISMATCH: "+c.want) {
			t.Errorf("%s --policy-key: exit %d\n%s%s", c.file, code, text.String(), stderr.String())
		}
		text.Reset()
		if code := run([]string{"--no-pager", "--color", "never", path}, &text, &stderr, env); code != 0 || !strings.Contains(text.String(), "a call's input is not the one its gate step decided on ("+c.want+")") {
			t.Errorf("%s: exit %d\n%s%s", c.file, code, text.String(), stderr.String())
		}
		var js bytes.Buffer
		var r struct {
			Notes []string `json:"notes"`
		}
		if code := run([]string{"--json", path}, &js, &stderr, env); code != 0 || json.Unmarshal(js.Bytes(), &r) != nil || len(r.Notes) == 0 ||
			!strings.Contains(r.Notes[0], "refused GATE_INPUT_MISMATCH") {
			t.Errorf("%s --json: exit %d, notes %q", c.file, code, r.Notes)
		}
	}
}
