package format

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestKinds(t *testing.T) {
	for _, k := range Kinds {
		if !IsKind(k) {
			t.Errorf("IsKind(%q) = false", k)
		}
	}
	for _, k := range []string{"", "Exec", "tool-call", "other"} {
		if IsKind(k) {
			t.Errorf("IsKind(%q) = true", k)
		}
	}
}

func TestCodes(t *testing.T) {
	seen := map[Code]bool{}
	for _, c := range Codes {
		if seen[c] || c == "" {
			t.Errorf("code %q repeated or empty", c)
		}
		seen[c] = true
	}
	if len(Codes) != 26 || Codes[0] != NotJSON || Codes[6] != SignatureInvalid || Codes[7] != KeyRevoked || Codes[16] != AttestInvalid ||
		Codes[19] != Truncated || Codes[22] != WitnessQuorum || Codes[23] != HooksNotManaged || Codes[25] != ActorMismatch {
		t.Errorf("Codes is not spec §7's list in order: %v", Codes)
	}
}

func TestCodeOf(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", Refuse(ChainBroken, "steps[3].prev"))
	if got := CodeOf(err); got != ChainBroken {
		t.Errorf("CodeOf = %q", got)
	}
	if got := CodeOf(errors.New("plain")); got != "" {
		t.Errorf("CodeOf(plain) = %q", got)
	}
	if s := Refuse(Shape, "/steps/0").Error(); s != "SHAPE: /steps/0" {
		t.Errorf("Error() = %q", s)
	}
}

func TestRecorderCheck(t *testing.T) {
	good := Recorder{Name: "record-step", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
	if err := good.Check(); err != nil {
		t.Error(err)
	}
	for _, r := range []Recorder{{SHA256: good.SHA256}, {Name: "x", SHA256: "AB"}, {Name: "x", SHA256: good.SHA256[:63] + "G"}} {
		if r.Check() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

func TestGateCodes(t *testing.T) {
	if len(GateCodes) != 6 || GateCodes[0] != PolicyMissing || GateCodes[3] != GateInputMismatch || GateCodes[4] != DeniedCallRan || GateCodes[5] != ApprovalMismatch {
		t.Errorf("GateCodes is not step 12's list in order: %v", GateCodes)
	}
	for _, c := range GateCodes {
		for _, d := range Codes {
			if c == d {
				t.Errorf("%s is in Codes and GateCodes", c)
			}
		}
	}
}

// TestTable: the table holds every code once, in the order of Codes, then
// GateCodes, then EvidenceCodes, then the bundle's two, then CommitCodes, each with its step and a meaning; the
// lists a fixture set covers are the table's, so a code added to one and
// not the other fails here.
func TestTable(t *testing.T) {
	var want []Code
	want = append(append(append(append(want, Codes...), GateCodes...), EvidenceCodes...), BundleInvalid, BundleKeyMismatch)
	want = append(want, CommitCodes...)
	want = append(want, Tombstoned)
	if len(Table) != len(want) {
		t.Fatalf("Table has %d codes, Codes, GateCodes and the bundle's %d", len(Table), len(want))
	}
	step := 0
	for i, c := range Table {
		if c.Code != want[i] {
			t.Errorf("Table[%d] is %s, want %s", i, c.Code, want[i])
		}
		if !strings.HasSuffix(c.Meaning, ".") {
			t.Errorf("%s: meaning %q is not a sentence", c.Code, c.Meaning)
		}
		switch {
		case c.Step == 0 && i >= len(Codes)+len(GateCodes)+len(EvidenceCodes):
		case c.Step < step || c.Step > 13 || (c.Step == 12) != (i >= len(Codes) && i < len(Codes)+len(GateCodes)) ||
			(c.Step == 13) != (i >= len(Codes)+len(GateCodes) && i < len(Codes)+len(GateCodes)+len(EvidenceCodes)):
			t.Errorf("%s: step %d out of order or out of place", c.Code, c.Step)
		default:
			step = c.Step
		}
	}
}

func TestHex64(t *testing.T) {
	ok := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if !Hex64(ok) {
		t.Errorf("Hex64(%q) = false", ok)
	}
	for _, s := range []string{"", ok[:63], ok + "0", "A" + ok[1:], "g" + ok[1:], "é" + ok[2:], " " + ok[1:]} {
		if Hex64(s) {
			t.Errorf("Hex64(%q) = true", s)
		}
	}
}
