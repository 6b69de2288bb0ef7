// Package runback records an agent's run as a runback cassette and replays
// it. A cassette (runback.audit/v2) is a hash-chained list of every
// non-deterministic input the agent took in: model calls, tool calls and
// environment reads (clock, random numbers, UUIDs, fetches). Its
// cassette_digest chains those inputs alone, keyed by what was asked, so a
// re-run of the same agent code against the cassette must reproduce it:
// that is the replay proof.
//
// An agent takes a Session and makes every such call through it. A
// Recorder makes the real call and records it; a Replayer serves the
// recorded output for the same call, with no network, and fails with
// ErrNotRecorded for a call the cassette does not hold. Both record what
// they hand out, so after a replay the two digests can be compared.
//
// Every string is redacted (the project's rules, or a Redactor you pass)
// before it is hashed or kept, and the agent is handed what the cassette
// holds, in recording as in replay, so both runs see the same values.
//
// Seal signs a cassette with Ed25519 (Ed25519Signer) or HMAC-SHA256
// (HMACSigner); HMAC proves custody of a shared secret, not identity.
// Verify checks one exactly as runback's own verifier does; the format and
// the algorithm are in docs/runback.md.
package runback
