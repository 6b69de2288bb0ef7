// Package verdict runs every check logbook-verify makes on one record (spec
// §7 steps 1-8, then the checkpoints of docs/checkpoint.md) and prints the
// outcome, as one line or as the --json object. logbook-verify and the
// server's POST /v1/verify both print through it, so their JSON is the
// same object byte for byte.
package verdict

import (
	"bytes"
	"crypto/ed25519"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/strictjson"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
)

// Inputs are a record and what the caller pins.
type Inputs struct {
	Record         []byte
	Pinned         []ed25519.PublicKey // --pubkey
	Revoked        []ed25519.PublicKey // --revoked
	Policy         policy.Options      // spec §7 step 8 beyond --pubkey
	Checkpoints    [][]byte            // --checkpoint: signed notes
	CheckpointKeys []checkpoint.Key    // --checkpoint-key
	Log            LogInputs           // --log-proof, --log-policy
	Gate           *GateInputs         // --policy-key, --require-policy (gate.go)
	RequireManaged bool                // --require-managed: step 11
	// RequireAttested: --require-attested, step 11 (attested.go).
	RequireAttested bool
	// EachStep and Top are record.Options': a review reads the steps
	// as they are verified.
	EachStep func(i int, st *strictjson.Value)
	Top      func(rec *strictjson.Value)
}

// Outcome is the verdict with what each stage found.
type Outcome struct {
	Result     record.Result // OK and Code are the final verdict
	Pinned     bool          // --pubkey was given
	Report     policy.Report
	Checkpoint checkpoint.Verdict
	// Level is the assurance level of an accepted record: local,
	// server or logged; "" when refused.
	Level string
	File  string // the record's name in --json, with several records
	// Logged is the proof of logging that held (level logged).
	Logged *logproof.Result
	// Gate is what the gate steps say, when --policy-key accepted them.
	Gate *orgpolicy.Summary
	// UncheckedGates counts the gate steps of an accepted record when no
	// --policy-key asked for step 12: they are said to be unchecked.
	UncheckedGates int
	// DeniedRan describes, when no --policy-key was given, the first
	// call the record's own gate steps denied that ran anyway: said as
	// a warning (the first), since nothing checked who signed the policy.
	DeniedRan string
	// InputMismatch describes, when no --policy-key was given, the first
	// call whose input is not the one its gate step decided on: said as
	// a warning, as DeniedRan is.
	InputMismatch string
	// ApprovalMismatch describes, when no --policy-key was given, the
	// first held call that went ahead without a matching approval: a
	// warning, as DeniedRan is.
	ApprovalMismatch string
	// Actors are who sent the record's events, when a fleet's server
	// wrote them (attested.go).
	Actors *Actors
	// Fresh: the log was read past the record's leaf and holds no later
	// checkpoint of the session (logproof.Fresh); false when not checked.
	Fresh bool
}

// Refuse makes o the refusal e, whatever the steps before it found: the
// one place a verdict turns to refused. The record's own facts (its ids,
// step count and gaps), the --pubkey note and the file name stay; all
// that an accepted record is shown with (the policy report, checkpoints,
// level, log, gate) goes, so a new check cannot leave one of them behind
// (TestRefuseClears holds every field to this).
func (o *Outcome) Refuse(e *format.RefusalError) {
	*o = Outcome{Result: o.Result, Pinned: o.Pinned, File: o.File}
	o.Result.Refuse(e)
}

// Refused is the outcome of a file refused as a whole before any record
// in it was checked (a hand-over bundle's container).
func Refused(e *format.RefusalError) Outcome {
	var o Outcome
	o.Refuse(e)
	return o
}

// Err is the refusal as a *format.RefusalError, for errors.As; nil when
// the record was accepted.
func (o *Outcome) Err() error { return o.Result.Err() }

// Run verifies in the fixed order: the record (spec §7 steps 1-7 and
// SIGNER_NOT_TRUSTED), the policy checks of step 8, then each checkpoint.
func Run(in Inputs) Outcome {
	cps := checkpoint.OpenAll(in.Checkpoints, in.CheckpointKeys, record.WeakKey)
	lc := openLog(in)
	if lc != nil && lc.leafOK && !given(in.Checkpoints, lc.res.Leaf) {
		cps = append(cps, lc.leaf) // judged in step 9 like the others
	}
	var col *Collect
	if len(in.Policy.Bundles) > 0 {
		col = &Collect{}
		in.Top, in.EachStep = col.Chain(in.Top, in.EachStep)
	}
	// The actors are read as the steps are verified; a record that names
	// none (no fleet wrote it) is not walked for them, unless step 11
	// must say so.
	var actors actorWalk
	if in.RequireAttested || mayNameActors(in.Record) {
		in.EachStep = actors.chain(in.EachStep)
	}
	opt := record.Options{Pinned: in.Pinned, Revoked: in.Revoked, HashesAt: checkpoint.Indices(cps), EachStep: in.EachStep, Top: in.Top}
	res := record.Verify(in.Record, opt)
	out := Outcome{Result: res, Pinned: len(in.Pinned) > 0}
	if !res.OK {
		return out
	}
	var err error
	if out.Report, err = policy.Check(res, in.Policy); err != nil {
		out.Refuse(format.AsRefusal(err, format.AttestInvalid))
		return out
	}
	out.Checkpoint = checkpoint.Judge(cps, res.Facts.SessionID, res.StepCount, res.Hashes)
	if c := out.Checkpoint.Code; c != "" {
		out.Refuse(format.Refuse(format.Code(c), out.Checkpoint.Detail))
		return out
	}
	out.Level = out.Checkpoint.Level
	if lc != nil {
		if c, d := lc.judge(res.StepCount); c != "" {
			out.Refuse(format.Refuse(format.Code(c), d))
			return out
		}
		out.Level, out.Logged = logproof.LevelLogged, &lc.res
		if in.Log.Fresh && in.Log.LaterFrom == lc.res.Index+1 {
			if c, d := stale(in, res.Facts.SessionID, res.StepCount, lc.res.Index); c != "" {
				out.Refuse(format.Refuse(format.Code(c), d))
				return out
			}
			out.Fresh = true
		}
	}
	if in.RequireManaged {
		if c, d := requireManaged(in.Record, out.Level); c != "" {
			out.Refuse(format.Refuse(c, d))
			return out
		}
	}
	if in.RequireAttested {
		if c, d := actors.requireAttested(out.Level); c != "" {
			out.Refuse(format.Refuse(c, d))
			return out
		}
	}
	judgeGate(in, &out)
	judgeBundles(in, &out, col)
	if out.Result.OK {
		out.Actors = actors.result()
	}
	return out
}

// RecordOnly is the record's own verdict (spec §7 steps 1-7 and the
// pinned signer) with nothing else judged, at level local when accepted:
// what logbook-verify --evidence shows before the transcript's check.
func RecordOnly(data []byte, pinned []ed25519.PublicKey) Outcome {
	res := record.Verify(data, record.Options{Pinned: pinned})
	o := Outcome{Result: res, Pinned: len(pinned) > 0}
	if res.OK {
		o.Level = checkpoint.LevelLocal
	}
	return o
}

// given reports whether the logged leaf is one of the --checkpoint notes
// (the server's sidecar is its final checkpoint, which it also logs):
// judging it twice would give the same verdict and list it twice.
func given(notes [][]byte, leaf []byte) bool {
	for _, n := range notes {
		if bytes.Equal(bytes.TrimRight(n, "\n"), bytes.TrimRight(leaf, "\n")) {
			return true
		}
	}
	return false
}
