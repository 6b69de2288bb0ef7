package verdict

import (
	"errors"
	"flag"
	"fmt"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
)

// GateFlags are --policy-key and --require-policy, which ask for step 12:
// every tool call gated under an organization policy signed by one of the
// keys (docs/policy.md §8). logbook-verify and logbook-review both take
// them, with the same meaning.
type GateFlags struct {
	keys    cli.List
	require string
}

// Register adds the two flags to fs.
func (g *GateFlags) Register(fs *flag.FlagSet) {
	fs.Var(&g.keys, "policy-key", "trusted organization-policy signer, SPKI PEM `FILE` (repeatable): every tool call must have a gate step under a policy it signed: POLICY_MISSING, POLICY_UNTRUSTED, GATE_MISSING, DENIED_CALL_RAN")
	fs.StringVar(&g.require, "require-policy", "", "with --policy-key: accept only gate steps under the policy with this `DIGEST` (logbook-policy verify prints it)")
}

// Load reads the keys; nil when step 12 was not asked for.
func (g *GateFlags) Load() (*GateInputs, error) {
	if len(g.keys) == 0 {
		if g.require != "" {
			return nil, errors.New("--require-policy needs --policy-key")
		}
		return nil, nil
	}
	if g.require != "" && !format.Hex64(g.require) {
		return nil, fmt.Errorf("--require-policy %q: want a policy digest, 64 lowercase hex", g.require)
	}
	ks, err := keys.ReadPublicFiles("--policy-key", g.keys)
	if err != nil {
		return nil, err
	}
	return &GateInputs{Require: g.require, Keys: ks}, nil
}
