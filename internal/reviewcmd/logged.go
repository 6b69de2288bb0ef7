package reviewcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/verdict"
)

// proofSidecar is where logbook-server writes a sealed record's proof of
// logging: ID.record.json -> ID.record.tlog-proof (docs/log.md).
func proofSidecar(path string) string {
	if !strings.HasSuffix(path, ".json") {
		return ""
	}
	return strings.TrimSuffix(path, ".json") + ".tlog-proof"
}

// readProof reads a proof file; one larger than any proof is still a
// verdict (LOG_PROOF_INVALID), as logbook-verify has it.
func readProof(file string) ([]byte, error) {
	b, err := readlimit.Small(file, logproof.MaxProof)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return make([]byte, logproof.MaxProof+1), nil
	}
	return b, err
}

// logOf reads --log-policy and the proof it judges, as logbook-verify
// does: --log-proof, else the bundle's proof, else the sidecar beside the
// record. Without --log-policy nothing is judged (level server at most).
func logOf(o options, path string, b *bundle.Bundle) (verdict.LogInputs, error) {
	var in verdict.LogInputs
	if o.logPolicy == "" {
		if o.logProof != "" && o.export == "" {
			return in, errors.New("--log-proof needs --log-policy to judge under")
		}
		return in, nil
	}
	text, err := readlimit.Small(o.logPolicy, readlimit.Policy)
	if err != nil {
		return in, err
	}
	if in.Policy, err = logproof.ParsePolicy(text); err != nil {
		return in, fmt.Errorf("--log-policy %s: %v", o.logPolicy, err)
	}
	switch {
	case o.logProof != "":
		in.Proof, err = readProof(o.logProof)
	case b != nil && len(b.LogProofs) > 0:
		in.Proof = b.LogProofs[0]
	case b != nil:
		err = errors.New("the bundle holds none")
	default:
		in.Proof, err = readProof(proofSidecar(path))
	}
	if err != nil {
		return in, fmt.Errorf("--log-policy: no proof of logging: %v", err)
	}
	return in, nil
}
