// Package policy runs the checks of spec §7 step 8 that go beyond the
// pinned key: signer identity, trusted timestamp and attestations. Each
// runs only when the caller asked for it, and only on a record whose
// signature verified (record.Verify, which also decides
// SIGNER_NOT_TRUSTED, the first policy code).
//
// Order, first failure wins: IDENTITY_KEY_MISMATCH, IDENTITY_UNTRUSTED,
// IDENTITY_NOT_ALLOWED; TIMESTAMP_MISSING, TIMESTAMP_INVALID; then each
// attestation in the order given, with ATTEST_INVALID before
// ATTEST_KEYID_MISMATCH before RECORDER_DIGEST_MISMATCH for that one
// attestation. The identity's signing time is the timestamp's genTime when
// the token verified against the caller's roots, else session.endedAt, so
// the timestamp is judged first but reported after the identity.
package policy

import (
	"crypto/ed25519"
	"crypto/x509"
	"time"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/tsa"
)

// Options say which checks to run.
type Options struct {
	// TSARoots, when not nil, requires a token in signature.rfc3161 that
	// verifies against them. When nil, a token is only reported.
	TSARoots *x509.CertPool
	// Identity, when not nil, requires signerIdentity to pass its checks.
	Identity *identity.Policy
	// Attestations are DSSE envelopes (file contents), each of which must
	// verify under one of AttestorKeys and agree with the record.
	Attestations [][]byte
	AttestorKeys []ed25519.PublicKey
	// Bundles are Sigstore bundles of the session attestation
	// (internal/sigbundle, file contents), each of which must verify
	// under one of AttestorKeys and say what the whole verdict found:
	// internal/verdict checks them last, since they state its level.
	Bundles [][]byte
}

// Timestamp reports signature.rfc3161.
type Timestamp struct {
	Time      time.Time // genTime; zero when the token cannot be read
	Authority string    // subject of the authority's certificate
	Trusted   bool      // verified against Options.TSARoots
	Problem   string    // why an untrusted token could not be read, or ""
}

// Attestation reports one verified attestation.
type Attestation struct {
	Type          string // attest.Witness or attest.Recorder
	AttestorKeyID string // SHA-256 of the attestor's SPKI
}

// Report is what the policy checks found in an accepted record.
type Report struct {
	Timestamp    *Timestamp // nil: the record has no token
	Identity     string     // the matched identity; "" when none was checked
	Attestations []Attestation
}

// Check applies step 8 to res, an accepted verdict of record.Verify: the
// report of what it found, or the first refusal (a *format.RefusalError)
// and an empty report. A refused res has nothing to check: its report is
// empty and its refusal stands (the caller holds it).
func Check(res record.Result, opt Options) (Report, error) {
	var rep Report
	if !res.OK || res.Facts == nil {
		return rep, nil
	}
	f := res.Facts
	// The timestamp is judged first (a trusted one is the time the
	// identity is checked at) and refused after the identity (spec order).
	var tsErr *format.RefusalError
	switch {
	case f.RFC3161 != nil && opt.TSARoots != nil:
		info, err := tsa.Verify(f.RFC3161, f.Signature, opt.TSARoots)
		if err != nil {
			tsErr = format.Refuse(format.TimestampInvalid, "signature.rfc3161: "+err.Error())
		} else {
			rep.Timestamp = &Timestamp{Time: info.Time, Authority: info.Authority, Trusted: true}
		}
	case f.RFC3161 != nil:
		info, err := tsa.Inspect(f.RFC3161)
		rep.Timestamp = &Timestamp{Time: info.Time, Authority: info.Authority}
		if err != nil {
			rep.Timestamp.Problem = err.Error()
		}
	case opt.TSARoots != nil:
		tsErr = format.Refuse(format.TimestampMissing, "time-stamping roots were given, and the record has no signature.rfc3161")
	}
	if opt.Identity != nil {
		at, err := time.Parse(time.RFC3339Nano, f.EndedAt)
		if err != nil {
			return Report{}, format.Refuse(format.IdentityUntrusted, "session.endedAt cannot be read as a time") // unreachable after the shape check
		}
		if rep.Timestamp != nil && rep.Timestamp.Trusted {
			at = rep.Timestamp.Time
		}
		name, err := identity.Check(f.Certificates, f.PublicKey, at, *opt.Identity)
		if err != nil {
			return Report{}, format.AsRefusal(err, format.IdentityUntrusted)
		}
		rep.Identity = name
	}
	if tsErr != nil {
		return Report{}, tsErr
	}
	for _, env := range opt.Attestations {
		v, err := attest.Check(env, opt.AttestorKeys, res.RecordID, res.KeyID, f.Recorder)
		if err != nil {
			return Report{}, format.AsRefusal(err, format.AttestInvalid)
		}
		rep.Attestations = append(rep.Attestations, Attestation{Type: v.Type, AttestorKeyID: v.AttestorKeyID})
	}
	return rep, nil
}
