// Package bundlecheck checks a hand-over bundle (docs/bundle.md) offline,
// as its parts would be checked one by one, through internal/verdict as
// any record: the record under the trusted keys (spec §7, same codes), the
// policy checks over the bundle's attestations (ATTEST_*) and the record's
// timestamp, then the bundle's checkpoints (CHECKPOINT_*, TRUNCATED and
// the assurance level) and its proof of logging (LOG_*, WITNESS_QUORUM,
// level logged): with the keys for every part, the same line and --json
// bytes as the parts checked without a bundle. The bundle's container gets
// BUNDLE_INVALID, and a signerKey that did not sign the record
// BUNDLE_KEY_MISMATCH. The receiver's keys and policies are read by the
// caller; nothing the bundle carries is trusted, only hinted at.
package bundlecheck

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/logproof"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/verdict"
)

// KeyMismatch: the bundle's signerKey is not the key that signed its
// record (the bundle's own part is damaged or swapped).
const KeyMismatch = format.BundleKeyMismatch

// Opened is a bundle that reads as one, with the key it names.
type Opened struct {
	*bundle.Bundle
	signer ed25519.PublicKey
}

// Open reads a bundle's container and its signerKey. A bundle that does
// not is refused: the Outcome (BUNDLE_INVALID) is the verdict.
func Open(data []byte) (*Opened, *verdict.Outcome) {
	b, err := bundle.Read(data)
	if err != nil {
		return nil, refusal(bundle.Invalid, err.(*bundle.Error).Detail)
	}
	pub, err := keys.ParsePublicKeyPEM([]byte(b.SignerKey))
	if err != nil {
		return nil, refusal(bundle.Invalid, "signerKey: "+err.Error())
	}
	return &Opened{Bundle: b, signer: pub}, nil
}

func refusal(code format.Code, detail string) *verdict.Outcome {
	o := verdict.Refused(format.Refuse(code, detail))
	return &o
}

// Options are the receiver's own keys and policies.
type Options struct {
	// Trusted are the signers the receiver trusts; with none, the record
	// is checked under the bundle's own key, which proves integrity only.
	Trusted        []ed25519.PublicKey
	Policy         policy.Options
	Checkpoints    [][]byte
	CheckpointKeys []checkpoint.Key
	// LogPolicy judges the bundle's proof of logging; without it the
	// proof is only noted.
	LogPolicy *logproof.Policy
}

// Result is the verdict and the notes on what the bundle holds that was
// not checked (a part without the receiver's key for it).
type Result struct {
	verdict.Outcome
	Notes []string
}

// ErrNoProof: a log policy was given, and the bundle holds no proof of
// logging to judge under it.
var ErrNoProof = errors.New("--log-policy: no proof of logging: the bundle holds none")

// Check checks b under o. Its only error is ErrNoProof.
func Check(b *Opened, o Options) (Result, error) {
	in := verdict.Inputs{Record: b.Record, Policy: o.Policy, Checkpoints: o.Checkpoints, CheckpointKeys: o.CheckpointKeys}
	pinned := len(o.Trusted) > 0
	if pinned {
		in.Pinned = o.Trusted
	}
	var notes []string
	if len(in.Policy.AttestorKeys) > 0 {
		in.Policy.Attestations = append(in.Policy.Attestations, b.Attestations...)
	} else if len(b.Attestations) > 0 {
		notes = append(notes, fmt.Sprintf("%d bundled attestation(s) not checked: pass --attestor-key", len(b.Attestations)))
	}
	if len(in.CheckpointKeys) > 0 {
		in.Checkpoints = append(in.Checkpoints, b.Checkpoints...)
	} else if len(b.Checkpoints) > 0 {
		notes = append(notes, fmt.Sprintf("%d bundled checkpoint(s) not checked: pass --checkpoint-key", len(b.Checkpoints)))
		notes = append(notes, keyHints(b.CheckpointKeys)...)
	}
	// The proof of logging is judged under the receiver's --log-policy
	// only, as `--log-policy P --log-proof F RECORD` judges it.
	if o.LogPolicy != nil {
		if len(b.LogProofs) == 0 {
			return Result{}, ErrNoProof
		}
		in.Log.Policy, in.Log.Proof = o.LogPolicy, b.LogProofs[0]
	} else if len(b.LogProofs) > 0 {
		notes = append(notes, fmt.Sprintf("%d bundled proof(s) of logging not checked: pass --log-policy", len(b.LogProofs)))
		if b.LogPolicy != "" {
			notes = append(notes, "the bundled log policy (sha256 "+short(b.LogPolicy)+"…) is not trusted: compare it out of band, then pass it as --log-policy")
		}
	}
	out := verdict.Run(in)
	// The key part before any other verdict: a record whose signature
	// verifies (Facts are set once it does, whatever a later step says)
	// under another key than the bundle names is a damaged bundle.
	if f := out.Result.Facts; f != nil && !bytes.Equal(f.PublicKey, b.signer) {
		return Result{Outcome: *refusal(KeyMismatch, "the bundle's signerKey is not the key that signed its record")}, nil
	}
	if b.TSARoots != "" {
		notes = append(notes, "bundled time-stamping roots (sha256 "+short(b.TSARoots)+"…) are not trusted: compare them out of band, then pass them as --tsa-roots")
	}
	if !pinned && out.Result.OK {
		notes = append(notes, "no --trust: checked under the bundle's own key, which proves integrity only")
	}
	return Result{Outcome: out, Notes: notes}, nil
}

// short is the first 8 bytes of text's SHA-256, in hex: enough to compare
// out of band.
func short(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// Write prints r: with asJSON the verdict's JSON object, the notes joined
// to an accepted verdict's detail; else its line, then a line per note.
func (r Result) Write(w io.Writer, asJSON bool) {
	if asJSON {
		out := r.Outcome
		if out.Result.OK && len(r.Notes) > 0 {
			out.Result.Detail += "; " + strings.Join(r.Notes, "; ")
		}
		verdict.WriteJSON(w, out)
		return
	}
	verdict.WriteHuman(w, r.Outcome)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

// keyHints reports the bundle's checkpoint keys by fingerprint: the keyId
// a checkpoint's key line holds (SHA-256 of the SPKI, docs/checkpoint.md).
// A key that cannot be read is reported as such, never refused: a hint is
// not a part that is checked.
func keyHints(ks []string) []string {
	var out []string
	for i, k := range ks {
		var pub []byte
		var err error
		if strings.Contains(k, "-----BEGIN") {
			pub, err = keys.ParsePublicKeyPEM([]byte(k))
		} else {
			var ck checkpoint.Key
			ck, err = checkpoint.ParseVerifierKey([]byte(k))
			pub = ck.Pub
		}
		if err != nil {
			out = append(out, fmt.Sprintf("bundled checkpoint key %d is unreadable (%v); it is a hint only", i+1, err))
			continue
		}
		out = append(out, "bundled checkpoint key keyId "+checkpoint.KeyID(pub)+" is not trusted: compare it out of band, then pass it as --checkpoint-key")
	}
	return out
}
