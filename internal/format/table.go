package format

// CodeInfo is one refusal code of Table: the code, the step of spec §7
// that decides it (1-7 the record itself, 8 the policy checks, 9 the
// checkpoints, 10 the proof of logging, 11 managed hooks, 12 the
// organization policy's gate, 13 a transcript as evidence; 0 a hand-over
// bundle's container or a commit's binding) and what
// it means, in a sentence for whoever reads a refusal.
type CodeInfo struct {
	Code    Code
	Step    int
	Meaning string
}

// Table is every refusal code a verdict can name, in the order they are
// judged. A new code is a constant above and a line here (and in Codes,
// GateCodes or EvidenceCodes, which TestTable holds to it): logbook-verify's line and
// --json, logbook-review and the web page's checker (web/js/codes.js,
// written from this table by go test ./web -update) all name it from
// there, and TestEveryCodeEverywhere (cmd/logbook-verify) fails for a
// code one of them lacks. It is static data, made at no start-up cost.
var Table = []CodeInfo{
	{NotJSON, 1, "Not one strict JSON text: invalid UTF-8, a byte-order mark, trailing data, a duplicate key, a lone surrogate escape or nesting deeper than 64."},
	{Shape, 2, "Valid JSON, but not a record: a float or out-of-range integer, a missing or unknown key, uppercase hex, an impossible timestamp, an unknown kind."},
	{StepOutOfOrder, 3, "A step's seq differs from its position: a step was dropped or moved."},
	{ChainBroken, 4, "A step's prev or hash does not recompute: a step was edited, removed or reordered."},
	{StepCountMismatch, 5, "stepCount differs from the number of steps: the tail may have been cut."},
	{TipMismatch, 6, "chainTip differs from the last step's hash."},
	{SignatureInvalid, 7, "The Ed25519 signature does not verify over the signed bytes, or the public key is weak (off the curve, non-canonical or of small order)."},
	{KeyRevoked, 8, "The signature is sound, but the key is one of the revoked keys (pinning a key does not undo its revocation)."},
	{SignerNotTrusted, 8, "The signature is sound, but the key is not one of the pinned public keys."},
	{IdentityKeyMismatch, 8, "The leaf certificate of the signer's identity certifies another key than the one that signed the record."},
	{IdentityUntrusted, 8, "The signer's certificates do not chain to the identity roots at the signing time, cannot be read, or the record has none."},
	{IdentityNotAllowed, 8, "The signer's certificate chain is trusted, but none of its names is one of the trusted identities."},
	{TimestampMissing, 8, "Time-stamping roots were given, and the record has no RFC 3161 token over its signature."},
	{TimestampInvalid, 8, "The record's RFC 3161 token does not verify against the time-stamping roots, or does not cover its signature."},
	{AttestKeyIDMismatch, 8, "A verified attestation about this record cites another signing key."},
	{RecorderDigestMismatch, 8, "A verified recorder attestation describes another recorder than the record names, or the record names none."},
	{AttestInvalid, 8, "An attestation does not parse, is not signed by a pinned attestor key, or is about another record."},
	{CheckpointInvalid, 9, "A checkpoint is malformed, or no pinned server key verifies it, or its key line names another key."},
	{CheckpointMismatch, 9, "A checkpoint is for another session, or the record's step at its size does not hash to its tip: steps were rewritten."},
	{Truncated, 9, "The record holds fewer steps than a checkpoint of the server counted: its tail was cut."},
	{LogProofInvalid, 10, "The proof of logging is malformed, its leaf is not in the log's tree, or the leaf is not a checkpoint of this record counting every step."},
	{LogUntrusted, 10, "No log key of the log policy signed the log's checkpoint."},
	{WitnessQuorum, 10, "The witnesses' cosignatures that verify do not meet the log policy's quorum."},
	{HooksNotManaged, 11, "Asked to require managed hooks: no server note says the session's hooks came from a file the agent cannot write."},
	{ActorUnattested, 11, "Asked to require attested actors: an event step carries no identity a fleet's server checked (an enrolled credential or an OIDC token), or the record is not at level server."},
	{ActorMismatch, 11, "Events of one session are attested to two developers: one wrote into another's session (a fleet's server refuses it with this code too)."},
	{PolicyMissing, 12, "A gate step could not load the organization policy, or the record has tool calls and no gate step at all."},
	{PolicyUntrusted, 12, "A gate step's policy is not signed by a trusted policy key, or is not the required policy."},
	{GateMissing, 12, "A tool call has no gate step before it: the hooks ran without the organization policy."},
	{GateInputMismatch, 12, "A tool call's input is not the one its gate step decided on: the gate was shown one call and another ran."},
	{DeniedCallRan, 12, "A call the organization policy denied has a post-event: the tool ran anyway."},
	{ApprovalMismatch, 12, "A call the policy held for an approver went ahead without an approval that matches it: none, another call's, one used twice, one given after it expired, or the developer's own."},
	{EvidenceDiffers, 13, "A body of the transcript given as evidence is not the one the record holds the digest of: the transcript or the record was changed."},
	{EvidenceUnrecorded, 13, "The transcript given as evidence holds a tool call, a prompt or a second result for a call that the record never saw."},
	{EvidenceMoved, 13, "The transcript given as evidence has the record's bodies in another order: a line was moved, or a call put in another turn."},
	{EvidenceAbsent, 13, "A body the record holds the digest of is not in the transcript given as evidence."},
	{EvidenceUnheld, 13, "The record holds no digest of the tool results the model read, so an edit of them in the transcript cannot be seen."},
	{BundleInvalid, 0, "The file is a bundle that is not one: not strict JSON, another format, an unknown or missing member."},
	{BundleKeyMismatch, 0, "The bundle's signerKey is not the key that signed its record: the bundle is damaged or its parts swapped."},
	{BindingMalformed, 0, "A commit's git note under refs/notes/logbook is not a logbook binding (not its strict JSON lines, or too large), or its Logbook-Record trailer is not session ids, or too large."},
	{RecordMissing, 0, "A commit's binding names a record that the records folder does not hold, or its Logbook-Record trailer a session whose record it does not hold."},
	{BindingForged, 0, "A commit's binding names a record of another session, or a step of it that names another commit; or its Logbook-Record trailer names a session other than the one that made it."},
	{CommitNotInRecord, 0, "A commit's binding, or its Logbook-Record trailer, names a record that verifies, but the record names neither the commit nor its patch id."},
	{LevelTooLow, 0, "A commit's record holds, but at a lower level (local, server, logged) than the level required."},
	{Tombstoned, 0, "The record was deleted under a retention policy: the file is the server's signed tombstone naming the session, the record's digest, tip and step count, and who deleted it, when and why."},
}
