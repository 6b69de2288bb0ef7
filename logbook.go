// Package logbook records what an AI coding agent does as a hash-chained,
// signed record that nobody can quietly edit, and verifies such records
// offline (the agent-work/record@0 format).
//
// A session's steps are appended, as they happen, to an in-progress
// journal in a session directory: one harness hook event at a time
// ([RecordEvent]) or one command run on the record ([Run]). [Seal] signs
// the journal into a record with an Ed25519 key. [Verify] checks a record
// and names every refusal with a [Code]; [Read] returns a verified
// record's session and steps. [Follow] watches a journal while the agent
// works and raises an [Alarm] when a step seen earlier changes.
//
// The commands record-step, logbook-wrap, logbook-seal and logbook-verify
// are this package's operations with flags, files and exit codes.
package logbook

import (
	"github.com/logbook-project/logbook/internal/follow"
	"github.com/logbook-project/logbook/internal/format"
)

// Version is the record format this package writes and reads.
const Version = format.Version

// Code names why a record was refused. A verifier checks a record in a
// fixed order and reports the first failure, so every implementation names
// the same code for the same file.
type Code = format.Code

// Refusal codes, in the order they are checked.
const (
	NotJSON           = format.NotJSON           // the file is not strict JSON (duplicate keys, lone surrogates, trailing data…)
	Shape             = format.Shape             // a member is missing, extra or of the wrong form
	StepOutOfOrder    = format.StepOutOfOrder    // steps[i].seq is not i
	ChainBroken       = format.ChainBroken       // a step's prev or hash is not what the chain says
	StepCountMismatch = format.StepCountMismatch // stepCount is not the number of steps
	TipMismatch       = format.TipMismatch       // chainTip is not the last step's hash
	SignatureInvalid  = format.SignatureInvalid  // the signature does not verify, or the key is weak
	// Policy, only when VerifyOptions ask for it.
	KeyRevoked             = format.KeyRevoked             // the signer is one of VerifyOptions.Revoked
	SignerNotTrusted       = format.SignerNotTrusted       // the signer is not one of VerifyOptions.Pinned
	IdentityKeyMismatch    = format.IdentityKeyMismatch    // the leaf certificate certifies another key
	IdentityUntrusted      = format.IdentityUntrusted      // the certificates do not chain to IdentityRoots
	IdentityNotAllowed     = format.IdentityNotAllowed     // no name of the leaf is in TrustedIdentities
	TimestampMissing       = format.TimestampMissing       // TimestampRoots were given, the record has no token
	TimestampInvalid       = format.TimestampInvalid       // the token does not verify or cover the signature
	AttestKeyIDMismatch    = format.AttestKeyIDMismatch    // an attestation cites another signing key
	RecorderDigestMismatch = format.RecorderDigestMismatch // an attestation describes another recorder
	AttestInvalid          = format.AttestInvalid          // an attestation's signature or statement fails
	// Not a record: the signed tombstone a server's retention policy
	// left in place of one (docs/index.md).
	Tombstoned = format.Tombstoned
)

// RefusalError is the error of a refused record. Its fields are
//
//	Code   Code   // why, as one of the refusal codes
//	Detail string // what, in words: which step, which member
//
// Use errors.As to get it from an error returned by [Verify] or [Read].
type RefusalError = format.RefusalError

// Alarm is the error [Follow] returns when an in-progress journal changes
// behind the recorder's back. Its fields are
//
//	Code    Code   // CHAIN_BROKEN, STEP_ALTERED, STEP_REMOVED, FILE_REPLACED, …
//	Session string // the session whose journal changed
//	Detail  string // what changed
type Alarm = follow.Alarm
