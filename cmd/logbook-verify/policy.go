package main

import (
	"flag"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/policy"
)

// policyFlags are the checks of spec §7 step 8 beyond --pubkey.
type policyFlags struct {
	tsaRoots, identityRoots, trusted string
	attestations, attestorKeys       cli.List
}

func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.tsaRoots, "tsa-roots", "", "PEM `FILE` of roots for time-stamping authorities: a valid signature.rfc3161 is then required (TIMESTAMP_MISSING, TIMESTAMP_INVALID)")
	fs.StringVar(&p.identityRoots, "identity-roots", "", "PEM `FILE` of roots for signer identities (with --trusted-identities): signerIdentity must chain to them (IDENTITY_*)")
	fs.StringVar(&p.trusted, "trusted-identities", "", "JSON `FILE`: an array of e-mail addresses, URIs and DNS names; the signer's certificate must name one (IDENTITY_NOT_ALLOWED)")
	fs.Var(&p.attestations, "attestation", "DSSE attestation `FILE` about the record (repeatable; needs --attestor-key): ATTEST_*, RECORDER_DIGEST_MISMATCH")
	fs.Var(&p.attestorKeys, "attestor-key", "pinned attestor: SPKI PEM public key `FILE` (repeatable)")
}

// load reads the files the flags name (policy.Load). Every problem is a
// usage or I/O error (exit 2), never a verdict.
func (p *policyFlags) load() (policy.Options, error) {
	return policy.Load(policy.Files{TSARoots: p.tsaRoots, IdentityRoots: p.identityRoots, Trusted: p.trusted,
		Attestations: p.attestations, AttestorKeys: p.attestorKeys})
}
