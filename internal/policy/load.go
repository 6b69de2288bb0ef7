package policy

import (
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
)

// Files are the files a command's flags name for the checks of step 8
// (logbook-verify and logbook-review take the same flags).
type Files struct {
	TSARoots      string   // --tsa-roots
	IdentityRoots string   // --identity-roots
	Trusted       string   // --trusted-identities
	Attestations  []string // --attestation
	AttestorKeys  []string // --attestor-key
	Bundles       []string // --attestation-bundle
}

// Load reads the files, each under its size limit, into Options. Every
// problem is a usage or I/O error (the command's exit 2), never a
// verdict; errors name the flag and the file.
func Load(f Files) (Options, error) {
	var o Options
	if f.TSARoots != "" {
		pool, err := readRoots("--tsa-roots", f.TSARoots)
		if err != nil {
			return o, err
		}
		o.TSARoots = pool
	}
	if (f.IdentityRoots == "") != (f.Trusted == "") {
		return o, errors.New("--identity-roots and --trusted-identities go together")
	}
	if f.IdentityRoots != "" {
		pool, err := readRoots("--identity-roots", f.IdentityRoots)
		if err != nil {
			return o, err
		}
		text, err := readlimit.Small(f.Trusted, readlimit.Policy)
		if err != nil {
			return o, err
		}
		names, err := identity.ParseTrusted(text)
		if err != nil {
			return o, fmt.Errorf("--trusted-identities %s: %v", f.Trusted, err)
		}
		o.Identity = &identity.Policy{Roots: pool, Trusted: names}
	}
	if len(f.Attestations) > 0 && len(f.AttestorKeys) == 0 {
		return o, errors.New("--attestation needs at least one --attestor-key to verify it under")
	}
	if len(f.Bundles) > 0 && len(f.AttestorKeys) == 0 {
		return o, errors.New("--attestation-bundle needs at least one --attestor-key to verify it under")
	}
	for _, file := range f.AttestorKeys {
		pub, _, err := keys.ReadPublic("--attestor-key", file)
		if err != nil {
			return o, err
		}
		if d := record.WeakKey(pub); d != "" {
			return o, fmt.Errorf("--attestor-key %s: %s; under it any attestation would verify", file, d)
		}
		o.AttestorKeys = append(o.AttestorKeys, pub)
	}
	for _, file := range f.Attestations {
		text, err := readlimit.Small(file, attest.MaxSize)
		if err != nil {
			return o, fmt.Errorf("--attestation: %w", err)
		}
		o.Attestations = append(o.Attestations, text)
	}
	for _, file := range f.Bundles {
		text, err := readlimit.Small(file, readlimit.AttestationBundle)
		if err != nil {
			return o, fmt.Errorf("--attestation-bundle: %w", err)
		}
		o.Bundles = append(o.Bundles, text)
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
