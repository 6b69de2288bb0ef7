package verdict

import (
	"fmt"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/record"
)

// LogInputs are a proof of logging and the policy it is judged under
// (docs/log.md, step 10).
type LogInputs struct {
	Proof  []byte           // a C2SP tlog-proof: the record's final checkpoint, logged
	Policy *logproof.Policy // nil: no log check
	// Fresh: Later holds every leaf of the log from index LaterFrom (the
	// one after the proof's) to its latest checkpoint, each checked to be
	// the log's (logproof.LaterLeaves). A later checkpoint of the
	// record's session among them refuses the record (TRUNCATED).
	Fresh     bool
	Later     [][]byte
	LaterFrom int64
}

// logCheck is step 10's state: the proof checked, and its leaf opened as
// a session checkpoint so that step 9 judges it with the others.
type logCheck struct {
	res    logproof.Result
	leaf   checkpoint.Opened
	leafOK bool
}

// openLog checks the proof and opens its leaf under the checkpoint keys,
// the pinned record signers and the policy's log keys (a server signs its
// records, its checkpoints and its log's checkpoints with one key).
func openLog(in Inputs) *logCheck {
	if in.Log.Policy == nil {
		return nil
	}
	lc := &logCheck{res: logproof.Check(in.Log.Proof, in.Log.Policy)}
	if lc.res.Leaf == nil {
		return lc
	}
	keys := append([]checkpoint.Key{}, in.CheckpointKeys...)
	for _, k := range in.Pinned { // the server that sealed signed the leaf too
		keys = append(keys, checkpoint.Key{Pub: k})
	}
	for _, l := range in.Log.Policy.Logs {
		keys = append(keys, checkpoint.Key{Pub: l.Pub})
	}
	lc.leaf.Checkpoint, lc.leaf.Err = checkpoint.Open(lc.res.Leaf, keys, record.WeakKey)
	lc.leafOK = lc.leaf.Err == nil
	return lc
}

// judgeLog is step 10, after every other step passed: the proof's code,
// then a leaf that is not a session checkpoint of this record counting
// every step. It returns the code and detail ("" when logged).
func (lc *logCheck) judge(stepCount int64) (string, string) {
	switch {
	case lc.res.Code == logproof.ProofInvalid:
		return lc.res.Code, lc.res.Detail
	case !lc.leafOK:
		return logproof.ProofInvalid, fmt.Sprintf("the logged leaf is not a session checkpoint under a pinned key: %v", lc.leaf.Err)
	case lc.leaf.Size != stepCount:
		return logproof.ProofInvalid, fmt.Sprintf("the logged checkpoint counts %d steps; the record holds %d", lc.leaf.Size, stepCount)
	case lc.res.Code != "":
		return lc.res.Code, lc.res.Detail
	}
	return "", ""
}

// stale looks, among the leaves logged after the record's own, for a later
// checkpoint of its session under the keys the logged leaf was opened
// with; it returns TRUNCATED and what was found, or "".
func stale(in Inputs, session string, stepCount int64, leafIndex int64) (string, string) {
	keys := append([]checkpoint.Key{}, in.CheckpointKeys...)
	for _, k := range in.Pinned {
		keys = append(keys, checkpoint.Key{Pub: k})
	}
	for _, l := range in.Log.Policy.Logs {
		keys = append(keys, checkpoint.Key{Pub: l.Pub})
	}
	for i, leaf := range in.Log.Later {
		c, err := checkpoint.Open(leaf, keys, record.WeakKey)
		if err != nil || c.Session != session || c.Size <= stepCount {
			continue // another session's, another server's, or not later
		}
		return checkpoint.Truncated, fmt.Sprintf("not the session's latest: the log's leaf %d, after this record's (%d), is a checkpoint of session %s counting %d steps; this record holds %d",
			in.Log.LaterFrom+int64(i), leafIndex, session, c.Size, stepCount)
	}
	return "", ""
}
