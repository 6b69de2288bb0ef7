// Package orgpolicy is an organization's signed policy for tool calls
// (docs/policy.md): rules written in CEL that decide allow, deny or ask for
// each PreToolUse (and PermissionRequest), the gate step that records each
// decision in the chain, the answer each harness understands, the JSON
// Pointer redaction rules the policy may add, and the record check behind
// logbook-verify --policy-key (POLICY_MISSING, POLICY_UNTRUSTED,
// GATE_MISSING, DENIED_CALL_RAN).
//
// It is not internal/policy, which runs spec §7 step 8 (identity,
// timestamp, attestations) on a record's signer.
//
// The file format, signing and the record check need no CEL; the rules
// (rules.go) do, and cel-go's start-up (about 3 ms of protobuf
// registration) must stay out of record-step: record-step hands a gated
// event to logbook-policy hook, which links this package whole.
package orgpolicy
