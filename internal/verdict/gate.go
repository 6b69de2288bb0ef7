package verdict

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// GateInputs are logbook-verify --policy-key and --require-policy: the
// organization policy's gate, step 11 (docs/policy.md §8).
type GateInputs struct {
	Keys    []ed25519.PublicKey
	Require string // a policy digest; "" accepts any policy signed by Keys
}

// judgeGate runs step 11 on an accepted record, after every other step.
func judgeGate(in Inputs, out *Outcome) {
	if in.Gate == nil || !out.Result.OK {
		return
	}
	if c, d := orgpolicy.CheckRecord(in.Record, in.Gate.Keys, in.Gate.Require); c != "" {
		out.Result.OK, out.Result.Code, out.Result.Detail = false, c, d
		out.Level = ""
	}
}
