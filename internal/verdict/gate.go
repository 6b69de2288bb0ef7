package verdict

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// GateInputs are logbook-verify --policy-key and --require-policy: the
// organization policy's gate, step 12 (docs/policy.md §8).
type GateInputs struct {
	Keys    []ed25519.PublicKey
	Require string // a policy digest; "" accepts any policy signed by Keys
}

// judgeGate runs step 12 on an accepted record, after every other step.
func judgeGate(in Inputs, out *Outcome) {
	if !out.Result.OK {
		return
	}
	if in.Gate == nil {
		out.UncheckedGates = countGates(in.Record)
		if out.UncheckedGates > 0 {
			out.InputMismatch = orgpolicy.InputMismatch(in.Record)
			out.DeniedRan = orgpolicy.DeniedCallRan(in.Record)
			out.ApprovalMismatch = orgpolicy.ApprovalMismatch(in.Record)
		}
		return
	}
	c, d, sum := orgpolicy.CheckRecordSummary(in.Record, in.Gate.Keys, in.Gate.Require)
	if c != "" {
		out.Refuse(format.Refuse(c, d))
		return
	}
	out.Gate = &sum
}

// gateHuman is the verdict line's part for step 12: the policy (its
// digest's first 16 hex; all of them with several), the gated calls and
// the enforced denials.
func gateHuman(o Outcome) string {
	g := o.Gate
	if g == nil {
		return ""
	}
	ps := ""
	for i, p := range g.Policies {
		if i > 0 {
			ps += ","
		}
		if len(g.Policies) == 1 && len(p) > 16 {
			p = p[:16]
		}
		ps += p
	}
	return fmt.Sprintf(" policy=%s gated=%d denied=%d", ps, g.Gates, g.Denied)
}

// gateStep is how a gate step's kind reads in a record's canonical bytes:
// a step's members are sorted, and "outputsSha256" follows "kind".
var gateStep = []byte(`"kind":"gate","outputsSha256":`)

// countGates counts the gate steps of a verified record, for the warning
// that they were not checked (no --policy-key).
func countGates(rec []byte) int { return bytes.Count(rec, gateStep) }

// DeniedRanWarning is the warning an accepted record gets when, without
// --policy-key, its own gate steps show a denied call that ran anyway:
// whoever signed the policy, the record contradicts itself.
func DeniedRanWarning(detail string) string {
	return fmt.Sprintf("a call the organization policy denied ran anyway (%s): with --policy-key this record is refused DENIED_CALL_RAN (docs/policy.md §8)", detail)
}

// InputMismatchWarning is the warning an accepted record gets when,
// without --policy-key, a call's input is not the one its own gate step
// decided on: the gate was shown another call (a swapped hook binary).
func InputMismatchWarning(detail string) string {
	return fmt.Sprintf("a call's input is not the one its gate step decided on (%s): the gate was shown another call; with --policy-key this record is refused GATE_INPUT_MISMATCH (docs/policy.md §8)", detail)
}

// UncheckedGatesWarning is the warning an accepted record with gate steps
// gets when no --policy-key checked them.
func UncheckedGatesWarning(n int) string {
	return fmt.Sprintf("the record has %d gate step(s) (an organization policy's decisions on tool calls), not checked: pass --policy-key PUB, the policy signer's public key, to check that every call was gated under a policy it signed and that no denied call ran (docs/policy.md §8)", n)
}

// ApprovalMismatchWarning is the warning an accepted record gets when,
// without --policy-key, a call held for an approver went ahead without an
// approval that matches it.
func ApprovalMismatchWarning(detail string) string {
	return fmt.Sprintf("a call held for an approver went ahead without an approval that matches it (%s): with --policy-key this record is refused APPROVAL_MISMATCH (docs/approvals.md)", detail)
}
