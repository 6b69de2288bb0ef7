package reviewcmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestReviewGate: review takes verify's --policy-key and --require-policy
// and says what verify says of the gate steps. A denied call that ran is
// refused DENIED_CALL_RAN under --policy-key; without it the review is
// accepted, but its first note and the call's row say the call ran
// although denied (a fresh user's review of such a record said only OK).
func TestReviewGate(t *testing.T) {
	const ran = "../../testdata/gate/fail_DENIED_CALL_RAN_post.json"
	const good = "../../testdata/gate/good_gated.json"
	const key = "../../testdata/gate/policy.key.pub"
	review := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"--no-pager", "--width", "0"}, args...), &out, &errb, func(string) string { return "" })
		return code, out.String(), errb.String()
	}

	code, out, errs := review(ran)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 2 || !strings.HasPrefix(lines[1], "note: a call the organization policy denied ran anyway (step 5: PostToolUse of Bash call toolu_2") ||
		!strings.Contains(out, "! RAN although denied by the organization policy: toolu_2") {
		t.Errorf("without --policy-key: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = review("--only", "gaps", ran)
	if code != 0 || !strings.Contains(out, "! RAN although denied by the organization policy: toolu_2") || strings.Contains(out, "toolu_1") {
		t.Errorf("--only gaps keeps the denied call that ran, and only it: exit %d\n%s", code, out)
	}
	code, out, _ = review("--json", ran)
	if code != 0 || !strings.Contains(out, `"note":"RAN although denied by the organization policy"`) || !strings.Contains(out, `"notes":["a call the organization policy denied ran anyway`) {
		t.Errorf("--json without --policy-key: exit %d\n%s", code, out)
	}
	code, out, _ = review("--policy-key", key, ran)
	if code != 1 || !strings.HasPrefix(out, "REFUSED DENIED_CALL_RAN: step 5: ") {
		t.Errorf("with --policy-key: exit %d\n%s", code, out)
	}

	code, out, _ = review(good)
	if code != 0 || strings.Contains(out, "ran anyway") || strings.Contains(out, "RAN although") || !strings.Contains(out, "note: the record has 3 gate step(s)") {
		t.Errorf("a good record without --policy-key: exit %d\n%s", code, out)
	}
	code, out, _ = review("--policy-key", key, good)
	if code != 0 || !strings.Contains(out, "note: organization policy checked under --policy-key: 3 call(s) gated, 2 denied, policy ") || strings.Contains(out, "not checked") {
		t.Errorf("a good record with --policy-key: exit %d\n%s", code, out)
	}
	code, out, _ = review("--policy-key", key, "--require-policy", strings.Repeat("0", 64), good)
	if code != 1 || !strings.HasPrefix(out, "REFUSED POLICY_UNTRUSTED: ") {
		t.Errorf("another required policy: exit %d\n%s", code, out)
	}
	code, _, errs = review("--require-policy", strings.Repeat("0", 64), good)
	if code != 2 || !strings.Contains(errs, "--require-policy needs --policy-key") {
		t.Errorf("--require-policy alone: exit %d\n%s", code, errs)
	}
}
