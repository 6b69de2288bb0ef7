package main

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
)

// policyFlags are the checks of spec §7 step 8 beyond --pubkey.
type policyFlags struct {
	tsaRoots, identityRoots, trusted string
	attestations, attestorKeys       pubkeyFlag
}

func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.tsaRoots, "tsa-roots", "", "PEM `FILE` of roots for time-stamping authorities: a valid signature.rfc3161 is then required (TIMESTAMP_MISSING, TIMESTAMP_INVALID)")
	fs.StringVar(&p.identityRoots, "identity-roots", "", "PEM `FILE` of roots for signer identities (with --trusted-identities): signerIdentity must chain to them (IDENTITY_*)")
	fs.StringVar(&p.trusted, "trusted-identities", "", "JSON `FILE`: an array of e-mail addresses, URIs and DNS names; the signer's certificate must name one (IDENTITY_NOT_ALLOWED)")
	fs.Var(&p.attestations, "attestation", "DSSE attestation `FILE` about the record (repeatable; needs --attestor-key): ATTEST_*, RECORDER_DIGEST_MISMATCH")
	fs.Var(&p.attestorKeys, "attestor-key", "pinned attestor: SPKI PEM public key `FILE` (repeatable)")
}

// load reads the files the flags name. Every problem is a usage or I/O
// error (exit 2), never a verdict.
func (p *policyFlags) load() (policy.Options, error) {
	var o policy.Options
	if p.tsaRoots != "" {
		pool, err := readRoots("--tsa-roots", p.tsaRoots)
		if err != nil {
			return o, err
		}
		o.TSARoots = pool
	}
	if (p.identityRoots == "") != (p.trusted == "") {
		return o, errors.New("--identity-roots and --trusted-identities go together")
	}
	if p.identityRoots != "" {
		pool, err := readRoots("--identity-roots", p.identityRoots)
		if err != nil {
			return o, err
		}
		text, err := readlimit.Small(p.trusted, readlimit.Policy)
		if err != nil {
			return o, err
		}
		names, err := identity.ParseTrusted(text)
		if err != nil {
			return o, fmt.Errorf("--trusted-identities %s: %v", p.trusted, err)
		}
		o.Identity = &identity.Policy{Roots: pool, Trusted: names}
	}
	if len(p.attestations) > 0 && len(p.attestorKeys) == 0 {
		return o, errors.New("--attestation needs at least one --attestor-key to verify it under")
	}
	for _, f := range p.attestorKeys {
		pub, _, err := keys.ReadPublic("--attestor-key", f)
		if err != nil {
			return o, err
		}
		if d := record.WeakKey(pub); d != "" {
			return o, fmt.Errorf("--attestor-key %s: %s; under it any attestation would verify", f, d)
		}
		o.AttestorKeys = append(o.AttestorKeys, pub)
	}
	for _, f := range p.attestations {
		text, err := readlimit.Small(f, attest.MaxSize)
		if err != nil {
			return o, fmt.Errorf("--attestation: %w", err)
		}
		o.Attestations = append(o.Attestations, text)
	}
	return o, nil
}

func readRoots(flagName, file string) (*x509.CertPool, error) {
	text, err := readlimit.Small(file, readlimit.Roots)
	if err != nil {
		return nil, err
	}
	pool, err := identity.ParseRoots(text)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", flagName, file, err)
	}
	return pool, nil
}
