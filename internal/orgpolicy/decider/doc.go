// Package decider is the client half of the organization policy's
// long-lived decider (docs/policy.md §7): `logbook-policy serve` loads,
// verifies and compiles a signed policy once and answers each gated hook
// over a Unix socket, so that record-step --policy does not pay CEL's and
// protobuf's start-up on every tool call.
//
// This package is linked into record-step, so it speaks with system calls
// only (no net): the wire format (Request, Answer, their parsers), the
// decider's key (the policy's and the trusted keys' bytes, the
// --policy-fail mode and the logbook-policy binary's identity), its
// directory (0700, the user's own), the client's checks (the socket's
// owner, the peer's uid by SO_PEERCRED) and starting a decider detached.
// The listening half, which may use net, is package decider/serve.
//
// A decider holds nothing the hook does not: it runs the very code of
// `logbook-policy hook` for each request, with the caller's arguments,
// environment, working directory and payload, and hands back its exit
// status, stdout and stderr. So a call decided by the decider leaves the
// same bytes in the journal as one decided by the exec'd hook.
package decider
