package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestUncheckedGates: a record with gate steps verified without
// --policy-key is accepted as before, with a warning saying the gate steps
// were not checked and how to check them (text and --json); with
// --policy-key the warning goes and the gate part of the line comes.
func TestUncheckedGates(t *testing.T) {
	t.Parallel()
	rec := "../../testdata/gate/good_gated.json"
	var out, errb bytes.Buffer
	if code := run([]string{rec}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if !strings.HasPrefix(out.String(), "OK ") || !strings.Contains(out.String(), "\nwarning: the record has 3 gate step(s) (an organization policy's decisions on tool calls), not checked: pass --policy-key PUB") {
		t.Errorf("without --policy-key:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"--json", rec}, &out, &errb); code != 0 || !strings.Contains(out.String(), `"the record has 3 gate step(s)`) {
		t.Errorf("--json: exit %d\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--policy-key", "../../testdata/gate/policy.key.pub", rec}, &out, &errb); code != 0 ||
		strings.Contains(out.String(), "not checked") || !strings.Contains(out.String(), " gated=3 denied=2") {
		t.Errorf("with --policy-key: exit %d\n%s", code, out.String())
	}
	// A record without gate steps gets no such warning.
	out.Reset()
	if code := run([]string{"../../testdata/bundles/logged/s1.record.json"}, &out, &errb); code != 0 || strings.Contains(out.String(), "gate step") {
		t.Errorf("no gate steps: exit %d\n%s", code, out.String())
	}
}

// TestDeniedRanUnchecked: without --policy-key, a record whose own gate
// steps show a denied call that ran is still accepted (nothing checked who
// signed the policy), but its first warning names the call, in text and
// --json; an audit-mode deny that ran gets no such warning.
func TestDeniedRanUnchecked(t *testing.T) {
	t.Parallel()
	for _, rec := range []string{"../../testdata/gate/fail_DENIED_CALL_RAN_post.json", "../../testdata/gate/fail_DENIED_CALL_RAN_failure.json"} {
		var out, errb bytes.Buffer
		if code := run([]string{rec}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s%s", rec, code, out.String(), errb.String())
		}
		lines := strings.Split(out.String(), "\n")
		i := 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "warning: ") {
			i++
		}
		if i == len(lines) || !strings.HasPrefix(lines[i], "warning: a call the organization policy denied ran anyway (step ") ||
			!strings.Contains(lines[i], "refused DENIED_CALL_RAN") {
			t.Errorf("%s: the first warning is not the denied call that ran:\n%s", rec, out.String())
		}
		out.Reset()
		if code := run([]string{"--json", rec}, &out, &errb); code != 0 || !strings.Contains(out.String(), `"warnings":["a call the organization policy denied ran anyway`) {
			t.Errorf("%s --json: exit %d\n%s", rec, code, out.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"../../testdata/gate/good_audit_denied_ran.json"}, &out, &errb); code != 0 || strings.Contains(out.String(), "ran anyway") {
		t.Errorf("audit mode: exit %d\n%s", code, out.String())
	}
}

// TestInputMismatchUnchecked: without --policy-key, a record whose own
// gate step decided on another input than its call's is accepted (nothing
// checked who signed the policy) with a first warning naming the call, in
// text and --json; with --policy-key it is refused GATE_INPUT_MISMATCH.
func TestInputMismatchUnchecked(t *testing.T) {
	t.Parallel()
	for _, rec := range []string{"../../testdata/gate/fail_GATE_INPUT_MISMATCH_pre.json", "../../testdata/gate/fail_GATE_INPUT_MISMATCH_post.json"} {
		var out, errb bytes.Buffer
		if code := run([]string{rec}, &out, &errb); code != 0 || !strings.Contains(out.String(), "\nwarning: a call's input is not the one its gate step decided on (step ") {
			t.Errorf("%s: exit %d\n%s%s", rec, code, out.String(), errb.String())
		}
		out.Reset()
		if code := run([]string{"--json", rec}, &out, &errb); code != 0 || !strings.Contains(out.String(), `"warnings":["a call's input is not the one its gate step decided on`) {
			t.Errorf("%s --json: exit %d\n%s", rec, code, out.String())
		}
		out.Reset()
		if code := run([]string{"--policy-key", "../../testdata/gate/policy.key.pub", "--require-policy", "8f19dd075f47472c95de03bbca59314d1db91e3bab2834e9f5f272aa0af3510e", rec}, &out, &errb); code != 1 ||
			!strings.HasPrefix(out.String(), "REFUSED GATE_INPUT_MISMATCH: step ") {
			t.Errorf("%s --policy-key --require-policy: exit %d\n%s%s", rec, code, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"../../testdata/gate/good_gated.json"}, &out, &errb); code != 0 || strings.Contains(out.String(), "gate step decided on") {
		t.Errorf("good: exit %d\n%s", code, out.String())
	}
}
