package verdict

import (
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/sigbundle"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// BundleType is the policy report's type of a session attestation bundle.
const BundleType = "session"

// judgeBundles checks each --attestation-bundle (internal/sigbundle)
// against what the verdict found, last of all: a bundle states the
// record's level and the gate's policies, known only once every check
// before it has run. ATTEST_INVALID or ATTEST_KEYID_MISMATCH.
func judgeBundles(in Inputs, out *Outcome, col *Collect) {
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

// Collect gathers, while a record is verified (as Inputs' Top
// and EachStep), what a statement says of it that the verdict does not
// keep: the session id, the chain tip (which the verdict holds equal to
// the last step's hash: TIP_MISMATCH) and the commits its logbook.commit
// steps name (internal/gitbind reads them).
type Collect struct {
	git  gitbind.Collect
	tip  string
	next func(i int, st *strictjson.Value)
	top  func(rec *strictjson.Value)
}

// Chain returns hooks that collect, then call top and each (either may
// be nil): a verdict's Top and EachStep that someone else reads too.
func (c *Collect) Chain(top func(*strictjson.Value), each func(int, *strictjson.Value)) (func(*strictjson.Value), func(int, *strictjson.Value)) {
	c.top, c.next = top, each
	return c.Top, c.Each
}

// Top reads the session id and the chain tip.
func (c *Collect) Top(rec *strictjson.Value) {
	c.git.Top(rec)
	t, _ := rec.GetString("chainTip")
	c.tip = strings.Clone(t)
	if c.top != nil {
		c.top(rec)
	}
}

// Each keeps the commit step i names, if any.
func (c *Collect) Each(i int, st *strictjson.Value) {
	c.git.Each(i, st)
	if c.next != nil {
		c.next(i, st)
	}
}

// facts are the facts of an accepted record: data its file's bytes, the
// rest what its verdict found.
func (c *Collect) facts(data []byte, recordID, keyID string, steps int64, level string, policies []string, lp *sigbundle.LogProof) sigbundle.Facts {
	f := sigbundle.Facts{RecordSHA256: sigbundle.RecordDigest(data), RecordID: recordID, SessionID: c.git.Session, KeyID: keyID,
		StepCount: steps, ChainTip: c.tip, Level: level, Policies: policies, LogProof: lp}
	seen := map[string]bool{}
	for _, n := range c.git.Named {
		if !seen[n.Commit] {
			seen[n.Commit] = true
			f.Commits = append(f.Commits, n.Commit)
		}
	}
	return f
}

// Facts are what a session attestation says of an accepted record, as
// this verdict found it: col collected it while the record was verified
// (Inputs' Top and EachStep chained through it).
func Facts(in Inputs, out Outcome, col *Collect) sigbundle.Facts {
	var pols []string
	if out.Gate != nil {
		pols = append([]string{}, out.Gate.Policies...)
	}
	var lp *sigbundle.LogProof
	if l := out.Logged; l != nil {
		lp = &sigbundle.LogProof{Origin: l.Origin, Index: l.Index, TreeSize: l.Size, Proof: string(in.Log.Proof)}
	}
	r := out.Result
	return col.facts(in.Record, r.RecordID, r.KeyID, r.StepCount, out.Level, pols, lp)
}
