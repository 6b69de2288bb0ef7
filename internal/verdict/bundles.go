package verdict

import (
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/sigbundle"
)

// BundleType is the policy report's type of a session attestation bundle.
const BundleType = "session"

// judgeBundles checks each --attestation-bundle (internal/sigbundle)
// against what the verdict found, last of all: a bundle states the
// record's level and the gate's policies, known only once every check
// before it has run. ATTEST_INVALID or ATTEST_KEYID_MISMATCH.
func judgeBundles(in Inputs, out *Outcome, col *sigbundle.Collect) {
	if !out.Result.OK || len(in.Policy.Bundles) == 0 {
		return
	}
	f := Facts(in, *out, col)
	for _, b := range in.Policy.Bundles {
		v, err := sigbundle.Check(b, in.Policy.AttestorKeys, f)
		if err != nil {
			out.Refuse(format.AsRefusal(err, format.AttestInvalid))
			return
		}
		out.Report.Attestations = append(out.Report.Attestations, policy.Attestation{Type: BundleType, AttestorKeyID: v.AttestorKeyID})
	}
}

// Facts are what a session attestation says of an accepted record, as
// this verdict found it: col collected it while the record was verified
// (Inputs' Top and EachStep chained through it).
func Facts(in Inputs, out Outcome, col *sigbundle.Collect) sigbundle.Facts {
	var pols []string
	if out.Gate != nil {
		pols = append([]string{}, out.Gate.Policies...)
	}
	var lp *sigbundle.LogProof
	if l := out.Logged; l != nil {
		lp = &sigbundle.LogProof{Origin: l.Origin, Index: l.Index, TreeSize: l.Size, Proof: string(in.Log.Proof)}
	}
	r := out.Result
	return col.Facts(in.Record, r.RecordID, r.KeyID, r.StepCount, out.Level, pols, lp)
}
