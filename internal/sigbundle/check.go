package sigbundle

import (
	"crypto/ed25519"
	"fmt"
	"slices"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Collect gathers, while a record is verified (as verdict.Inputs' Top
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

// Facts are the facts of an accepted record: data its file's bytes, res
// what its verdict found.
func (c *Collect) Facts(data []byte, recordID, keyID string, steps int64, level string, policies []string, lp *LogProof) Facts {
	f := Facts{RecordSHA256: RecordDigest(data), RecordID: recordID, SessionID: c.git.Session, KeyID: keyID,
		StepCount: steps, ChainTip: c.tip, Level: level, Policies: policies, LogProof: lp}
	for _, n := range c.git.Named {
		if !slices.Contains(f.Commits, n.Commit) {
			f.Commits = append(f.Commits, n.Commit)
		}
	}
	return f
}

// Check reads a bundle under the pinned attestor keys and holds it to
// the record's facts, as this verification found them: ATTEST_INVALID
// when it does not verify or says anything else of the record (another
// record, file, session, step count, chain tip, commit list, a level or
// a policy this check did not reach, another log entry), and
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
	case got.KeyID != want.KeyID:
		return v, format.Refuse(format.AttestKeyIDMismatch, fmt.Sprintf("attestation bundle: it cites key %s, the record is signed by %s", got.KeyID, want.KeyID))
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
	return v, nil
}

var levels = map[string]int{"local": 1, "server": 2, "logged": 3}
