package logbook

import (
	"crypto/ed25519"
	"crypto/x509"
	"time"

	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/verdict"
)

// VerifyOptions are the caller's policy. Each check runs only when its
// option is set, and only once the signature has verified.
type VerifyOptions struct {
	// Pinned are the trusted signers. When not empty, a record signed by
	// any other key is refused with SIGNER_NOT_TRUSTED; when empty, a
	// record proves only that it is unchanged since it was signed, not
	// who signed it.
	Pinned []ed25519.PublicKey
	// Revoked are signers no longer trusted (a leaked or retired key): a
	// record signed by one is refused with KEY_REVOKED, even if pinned.
	Revoked []ed25519.PublicKey
	// IdentityRoots, when not nil, require the record's signer
	// certificates to chain to them at the signing time, their leaf to
	// certify the signing key, and one of its names (e-mail, URI, DNS) to
	// be in TrustedIdentities: IDENTITY_KEY_MISMATCH, IDENTITY_UNTRUSTED,
	// IDENTITY_NOT_ALLOWED.
	IdentityRoots     *x509.CertPool
	TrustedIdentities []string
	// TimestampRoots, when not nil, require an RFC 3161 token over the
	// signature that verifies against them: TIMESTAMP_MISSING,
	// TIMESTAMP_INVALID. When nil, a token is only reported.
	TimestampRoots *x509.CertPool
	// Attestations are DSSE envelopes about the record (file contents),
	// each of which must verify under one of AttestorKeys and agree with
	// the record: ATTEST_INVALID, ATTEST_KEYID_MISMATCH,
	// RECORDER_DIGEST_MISMATCH.
	Attestations [][]byte
	AttestorKeys []ed25519.PublicKey
	// AttestationBundles are session attestation bundles (Sigstore
	// bundles of an in-toto statement, docs/attestation.md; file
	// contents), each of which must verify under one of AttestorKeys and
	// say what this verification finds of the record, checked last:
	// ATTEST_INVALID, ATTEST_KEYID_MISMATCH.
	AttestationBundles [][]byte
}

// Verified describes an accepted record.
type Verified struct {
	RecordID  string // SHA-256 of the signed bytes, hex: names this record
	KeyID     string // SHA-256 of the signer's public key (SPKI DER), hex
	StepCount int64
	Pinned    bool // the signer is one of VerifyOptions.Pinned
	// Gaps counts missing and repeated events: an unfinished tool call, a
	// post-event without its pre-event. They are facts about the session
	// that the signature covers, not refusals.
	Gaps Gaps
	// Timestamp is the record's RFC 3161 token, nil when it has none.
	Timestamp *Timestamp
	// Identity is the signer identity matched in TrustedIdentities, ""
	// when none was asked for.
	Identity string
	// Attestations are the attestations that verified, in the order given.
	Attestations []Attestation
}

// Gaps counts events a session lacks or repeats.
type Gaps = gaps.Counts

// Timestamp describes a record's RFC 3161 token.
type Timestamp struct {
	Time      time.Time // the authority's genTime; zero when the token cannot be read
	Authority string    // the authority's certificate subject
	Trusted   bool      // verified against VerifyOptions.TimestampRoots
}

// Attestation is an attestation that verified.
type Attestation struct {
	Type          string // "witness", "recorder" or "session" (a bundle)
	AttestorKeyID string // SHA-256 of the attestor's public key (SPKI DER), hex
}

// Verify checks a record's bytes, offline, and returns what it proves, or
// a *RefusalError naming the first failure in the format's order. It never
// panics, whatever the input.
func Verify(data []byte, opt VerifyOptions) (*Verified, error) {
	pol := policy.Options{TSARoots: opt.TimestampRoots, Attestations: opt.Attestations, AttestorKeys: opt.AttestorKeys, Bundles: opt.AttestationBundles}
	if opt.IdentityRoots != nil || opt.TrustedIdentities != nil {
		pol.Identity = &identity.Policy{Roots: opt.IdentityRoots, Trusted: opt.TrustedIdentities}
	}
	// The verdict the command prints: one home for the order of checks.
	out := verdict.Run(verdict.Inputs{Record: data, Pinned: opt.Pinned, Revoked: opt.Revoked, Policy: pol})
	if err := out.Err(); err != nil {
		return nil, err
	}
	res, rep := out.Result, out.Report
	v := &Verified{RecordID: res.RecordID, KeyID: res.KeyID, StepCount: res.StepCount, Pinned: res.Pinned, Gaps: res.Gaps,
		Identity: rep.Identity}
	if t := rep.Timestamp; t != nil {
		v.Timestamp = &Timestamp{Time: t.Time, Authority: t.Authority, Trusted: t.Trusted}
	}
	for _, a := range rep.Attestations {
		v.Attestations = append(v.Attestations, Attestation{Type: a.Type, AttestorKeyID: a.AttestorKeyID})
	}
	return v, nil
}
