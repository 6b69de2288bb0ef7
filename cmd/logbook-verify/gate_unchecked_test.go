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
