package logbook

import (
	"crypto/ed25519"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/record"
)

// VerifyOptions are the caller's policy.
type VerifyOptions struct {
	// Pinned are the trusted signers. When not empty, a record signed by
	// any other key is refused with SIGNER_NOT_TRUSTED; when empty, a
	// record proves only that it is unchanged since it was signed, not
	// who signed it.
	Pinned []ed25519.PublicKey
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
}

// Gaps counts events a session lacks or repeats.
type Gaps = gaps.Counts

// Verify checks a record's bytes, offline, and returns what it proves, or
// a *RefusalError naming the first failure in the format's order. It never
// panics, whatever the input.
func Verify(data []byte, opt VerifyOptions) (*Verified, error) {
	res := record.Verify(data, record.Options{Pinned: opt.Pinned})
	if !res.OK {
		return nil, format.Refuse(res.Code, res.Detail)
	}
	return &Verified{RecordID: res.RecordID, KeyID: res.KeyID, StepCount: res.StepCount, Pinned: res.Pinned, Gaps: res.Gaps}, nil
}
