package sigbundle

import (
	"crypto/ed25519"
	"fmt"
	"slices"

	"github.com/logbook-project/logbook/internal/format"
)

// Check reads a bundle under the pinned attestor keys and holds it to
// the record's facts, as this verification found them: ATTEST_INVALID
// when it does not verify or says anything else of the record (another
// record, file, session, step count, chain tip, commit list, a level or
// a policy this check did not reach, another log entry), then
// ATTEST_KEYID_MISMATCH when it cites another signing key.
func Check(bundle []byte, keys []ed25519.PublicKey, want Facts) (Verified, error) {
	v, err := Open(bundle, keys)
	if err != nil {
		return v, format.Refuse(format.AttestInvalid, "attestation bundle: "+err.Error())
	}
	got := v.Facts
	bad := func(what string, g, w any) error {
		return format.Refuse(format.AttestInvalid, fmt.Sprintf("attestation bundle: it says %s %v, the record has %v", what, g, w))
	}
	switch {
	case got.RecordID != want.RecordID:
		return v, bad("recordId", got.RecordID, want.RecordID)
	case got.RecordSHA256 != want.RecordSHA256:
		return v, bad("the record file's sha256 is", got.RecordSHA256, want.RecordSHA256)
	case got.SessionID != want.SessionID:
		return v, bad("sessionId", got.SessionID, want.SessionID)
	case got.StepCount != want.StepCount:
		return v, bad("stepCount", got.StepCount, want.StepCount)
	case got.ChainTip != want.ChainTip:
		return v, bad("chainTip", got.ChainTip, want.ChainTip)
	case !slices.Equal(got.Commits, want.Commits):
		return v, bad("the commits are", got.Commits, want.Commits)
	case levels[got.Level] > levels[want.Level]:
		return v, format.Refuse(format.AttestInvalid, fmt.Sprintf("attestation bundle: it says level %s, this check reached %s (give the keys and the log policy that show it: --checkpoint-key, --log-policy)", got.Level, want.Level))
	case got.Policies != nil && !slices.Equal(got.Policies, want.Policies):
		return v, format.Refuse(format.AttestInvalid, fmt.Sprintf("attestation bundle: it says the gate's policies are %v, this check found %v (give --policy-key to check them)", got.Policies, want.Policies))
	}
	if g, w := got.LogProof, want.LogProof; g != nil && w != nil && (g.Origin != w.Origin || g.Index != w.Index) {
		return v, format.Refuse(format.AttestInvalid, fmt.Sprintf("attestation bundle: it cites entry %d of log %s, the record's proof is of entry %d of log %s", g.Index, g.Origin, w.Index, w.Origin))
	}
	if got.KeyID != want.KeyID {
		return v, format.Refuse(format.AttestKeyIDMismatch, fmt.Sprintf("attestation bundle: it cites key %s, the record is signed by %s", got.KeyID, want.KeyID))
	}
	return v, nil
}

var levels = map[string]int{"local": 1, "server": 2, "logged": 3}
