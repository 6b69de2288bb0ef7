package format

import "errors"

// Code names why a verifier refused a record (spec §7). Every
// implementation names the same code for the same file.
type Code string

// Refusal codes, in the order a verifier checks them (spec §7). A verifier
// reports the first failure in this order.
const (
	NotJSON           Code = "NOT_JSON"            // §1 fails
	Shape             Code = "SHAPE"               // §2 or §4 fails
	StepOutOfOrder    Code = "STEP_OUT_OF_ORDER"   // steps[i].seq != i
	ChainBroken       Code = "CHAIN_BROKEN"        // prev or hash is not what §5 says
	StepCountMismatch Code = "STEP_COUNT_MISMATCH" // stepCount is not the number of steps
	TipMismatch       Code = "TIP_MISMATCH"        // chainTip is not what §5 says
	SignatureInvalid  Code = "SIGNATURE_INVALID"   // the signature does not verify, or the key is weak
	// Policy (step 8), only when the caller asks for it.
	KeyRevoked             Code = "KEY_REVOKED"              // the signing key is one the caller revoked
	SignerNotTrusted       Code = "SIGNER_NOT_TRUSTED"       // the key is not a pinned one
	IdentityKeyMismatch    Code = "IDENTITY_KEY_MISMATCH"    // the leaf certificate certifies another key
	IdentityUntrusted      Code = "IDENTITY_UNTRUSTED"       // the chain does not reach the roots
	IdentityNotAllowed     Code = "IDENTITY_NOT_ALLOWED"     // the identity is not a trusted one
	TimestampMissing       Code = "TIMESTAMP_MISSING"        // roots were given and there is no token
	TimestampInvalid       Code = "TIMESTAMP_INVALID"        // the token does not verify or cover the signature
	AttestKeyIDMismatch    Code = "ATTEST_KEYID_MISMATCH"    // an attestation cites another key
	RecorderDigestMismatch Code = "RECORDER_DIGEST_MISMATCH" // an attestation describes another recorder
	AttestInvalid          Code = "ATTEST_INVALID"           // an attestation's signature or shape fails
	// Checkpoints (step 9, docs/checkpoint.md), only when the caller gives
	// them; internal/checkpoint decides them.
	CheckpointInvalid  Code = "CHECKPOINT_INVALID"  // not signed by a pinned server key, or malformed
	CheckpointMismatch Code = "CHECKPOINT_MISMATCH" // another session, or the tip is not steps[size-1].hash
	Truncated          Code = "TRUNCATED"           // fewer steps than the checkpoint counted
	// The proof of logging (step 10, docs/log.md), only with a log policy;
	// internal/logproof decides them.
	LogProofInvalid Code = "LOG_PROOF_INVALID" // malformed, or the leaf is not in the tree its checkpoint states
	LogUntrusted    Code = "LOG_UNTRUSTED"     // no log key of the policy signed the log checkpoint
	WitnessQuorum   Code = "WITNESS_QUORUM"    // the witnesses' cosignatures do not meet the quorum
	// Where the hooks came from (step 11, docs/server.md), only with
	// --require-managed; internal/verdict decides it.
	HooksNotManaged Code = "HOOKS_NOT_MANAGED" // no server note says the session's hooks were managed
	// Who sent each event (step 11, docs/fleet.md), only with
	// --require-attested; internal/verdict decides them. ActorMismatch is
	// also a fleet server's refusal of another developer's event.
	ActorUnattested Code = "ACTOR_UNATTESTED" // an event step without an identity a fleet's server checked
	ActorMismatch   Code = "ACTOR_MISMATCH"   // events of one session attested to two developers
	// The organization policy's gate (step 12, docs/policy.md §8), only
	// with --policy-key; internal/orgpolicy decides them.
	PolicyMissing   Code = "POLICY_MISSING"   // a gate ran without a policy, or tool calls and no gate at all
	PolicyUntrusted Code = "POLICY_UNTRUSTED" // a gate's policy is not signed by a --policy-key (or not the required one)
	GateMissing     Code = "GATE_MISSING"     // a tool call without its gate step
	// GateInputMismatch: a call's pre- or post-event digests another
	// input than its gate step: the gate was shown one call, another ran.
	GateInputMismatch Code = "GATE_INPUT_MISMATCH"
	DeniedCallRan     Code = "DENIED_CALL_RAN" // a denied call has a post-event: it ran anyway
	// ApprovalMismatch: a held call ran without the approval that names
	// it (another call's, one used twice, expired, self-approved, or none).
	ApprovalMismatch Code = "APPROVAL_MISMATCH"
)

// Codes lists every refusal code in the order of spec §7.
var Codes = []Code{NotJSON, Shape, StepOutOfOrder, ChainBroken, StepCountMismatch, TipMismatch, SignatureInvalid,
	KeyRevoked, SignerNotTrusted, IdentityKeyMismatch, IdentityUntrusted, IdentityNotAllowed, TimestampMissing, TimestampInvalid,
	AttestKeyIDMismatch, RecorderDigestMismatch, AttestInvalid, CheckpointInvalid, CheckpointMismatch, Truncated,
	LogProofInvalid, LogUntrusted, WitnessQuorum, HooksNotManaged, ActorUnattested, ActorMismatch}

// GateCodes are the codes of step 12, in order: the organization policy's
// gate, judged only with --policy-key after every other step. They are
// kept out of Codes, which lists the steps every record fixture set
// (testdata/records/{,policy,checkpoint,log}) covers; their fixtures are
// in testdata/gate/.
var GateCodes = []Code{PolicyMissing, PolicyUntrusted, GateMissing, GateInputMismatch, DeniedCallRan, ApprovalMismatch}

// Evidence codes (step 13, docs/review.md): logbook-verify --evidence, a
// transcript checked against a record that is accepted first, in this
// order; internal/evidence decides them.
const (
	EvidenceDiffers    Code = "EVIDENCE_DIFFERS"    // a body the transcript holds is not the recorded one
	EvidenceUnrecorded Code = "EVIDENCE_UNRECORDED" // the transcript holds a call, a prompt or a second result the record never saw
	EvidenceMoved      Code = "EVIDENCE_MOVED"      // the transcript has the record's bodies in another order
	EvidenceAbsent     Code = "EVIDENCE_ABSENT"     // a recorded body the transcript lacks (unless --allow-absent)
	EvidenceUnheld     Code = "EVIDENCE_UNHELD"     // what the model read has no digest in the record (unless --allow-unheld)
)

// EvidenceCodes are the codes of step 13, in order: a transcript against
// an accepted record, only with --evidence. Their fixtures are in
// testdata/evidence/.
var EvidenceCodes = []Code{EvidenceDiffers, EvidenceUnrecorded, EvidenceMoved, EvidenceAbsent, EvidenceUnheld}

// RefusalError is a refusal: the spec §7 code and what, in words, failed.
// It is the one form a refusal takes: a check returns one, a verdict
// holds one (record.Result.Refuse), and callers find it with errors.As.
type RefusalError struct {
	Code   Code
	Detail string
}

func (e *RefusalError) Error() string {
	if e.Detail == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Detail
}

// Refuse returns a *RefusalError.
func Refuse(code Code, detail string) *RefusalError { return &RefusalError{Code: code, Detail: detail} }

// CodeOf returns the code of the first *RefusalError in err's chain, or ""
// when there is none.
func CodeOf(err error) Code {
	if r := (*RefusalError)(nil); errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// AsRefusal is err's *RefusalError, or a refusal with code when err is
// some other error: a check that fails never passes (fail closed).
func AsRefusal(err error, code Code) *RefusalError {
	if r := (*RefusalError)(nil); errors.As(err, &r) {
		return r
	}
	return Refuse(code, err.Error())
}

// Bundle codes (docs/bundle.md): a hand-over bundle's own container. A
// damaged part inside a sound bundle gets that part's code above.
const (
	BundleInvalid     Code = "BUNDLE_INVALID"      // not a strict logbook/bundle@0 object
	BundleKeyMismatch Code = "BUNDLE_KEY_MISMATCH" // signerKey is not the key that signed the record
)

// Commit codes (docs/commits.md): a commit's binding to its record, judged
// by logbook-verify --commits after the record itself verifies; a record
// that does not verify gives the commit the record's own code above. In
// the order they are judged.
const (
	BindingMalformed  Code = "BINDING_MALFORMED"    // the note is not logbook's binding format, or too large
	RecordMissing     Code = "RECORD_MISSING"       // the note names a record the folder does not hold
	BindingForged     Code = "BINDING_FORGED"       // the record is another session's, or its step names another commit
	CommitNotInRecord Code = "COMMIT_NOT_IN_RECORD" // the record names neither the commit nor its patch id
	LevelTooLow       Code = "LEVEL_TOO_LOW"        // the record holds, at a lower level than --require-level
)

// CommitCodes lists the commit codes in the order they are judged.
var CommitCodes = []Code{BindingMalformed, RecordMissing, BindingForged, CommitNotInRecord, LevelTooLow}

// Tombstoned (docs/index.md): the file is the signed tombstone a server
// left in place of a record it deleted under a retention policy
// (internal/tombstone), not a record.
const Tombstoned Code = "TOMBSTONED"
