// Package verdictflags turns the flags of logbook-verify and logbook-review
// into the inputs a verdict needs (verdict.Inputs): the pinned and revoked
// signers, the files of the policy checks (step 8), the server's
// checkpoints and their keys (with the sidecar beside a record and the
// key-rotation notes), the proof of logging and its policy (with the log's
// tiles for freshness) and the gate's keys. Both commands read a flag the
// same way because both read it here, as verdict.GateFlags has it for the
// gate. Every problem is a usage or I/O error (the commands' exit 2),
// never a verdict; errors name the flag and the file.
package verdictflags

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/rotation"
	"github.com/logbook-project/logbook/internal/verdict"
)

// Flags are the file names and switches the flags give. Register adds
// them all, with logbook-verify's words; a command that takes fewer
// (logbook-review) adds its own to the same fields.
type Flags struct {
	Pubkeys, Revoked                 cli.List // --pubkey, --revoked
	TSARoots, IdentityRoots, Trusted string   // --tsa-roots, --identity-roots, --trusted-identities
	Attestations, AttestorKeys       cli.List // --attestation, --attestor-key
	Bundles                          cli.List // --attestation-bundle
	Checkpoints, CheckpointKeys      cli.List // --checkpoint, --checkpoint-key
	Rotations                        string   // --key-rotations
	LogPolicy, LogProof, LogTiles    string   // --log-policy, --log-proof, --log-tiles
	RequireManaged                   bool     // --require-managed
	RequireAttested                  bool     // --require-attested
	Gate                             verdict.GateFlags
	// Getenv reads the bearer token for --log-tiles (ReadToken); nil is
	// os.Getenv.
	Getenv func(string) string
}

// Register adds every flag to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.Var(&f.Pubkeys, "pubkey", "pinned signer: SPKI PEM public key `FILE` (repeatable); any other signer is SIGNER_NOT_TRUSTED")
	fs.Var(&f.Revoked, "revoked", "revoked signer: public key `FILE` (SPKI PEM, or a JWK) whose signatures are refused, on a record (KEY_REVOKED) or a runback cassette (repeatable)")
	fs.StringVar(&f.TSARoots, "tsa-roots", "", "PEM `FILE` of roots for time-stamping authorities: a valid signature.rfc3161 is then required (TIMESTAMP_MISSING, TIMESTAMP_INVALID)")
	fs.StringVar(&f.IdentityRoots, "identity-roots", "", "PEM `FILE` of roots for signer identities (with --trusted-identities): signerIdentity must chain to them (IDENTITY_*)")
	fs.StringVar(&f.Trusted, "trusted-identities", "", "JSON `FILE`: an array of e-mail addresses, URIs and DNS names; the signer's certificate must name one (IDENTITY_NOT_ALLOWED)")
	fs.Var(&f.Attestations, "attestation", "DSSE attestation `FILE` about the record (repeatable; needs --attestor-key): ATTEST_*, RECORDER_DIGEST_MISMATCH")
	fs.Var(&f.Bundles, "attestation-bundle", "Sigstore bundle `FILE` of the session's in-toto attestation (logbook-attest --type session; docs/attestation.md; repeatable; needs --attestor-key): it must say what this check finds of the record, its commits and its level, else ATTEST_INVALID or ATTEST_KEYID_MISMATCH")
	fs.Var(&f.AttestorKeys, "attestor-key", "pinned attestor: SPKI PEM public key `FILE` (repeatable)")
	fs.Var(&f.Checkpoints, "checkpoint", "signed checkpoint `FILE` from a logbook server (repeatable; needs --checkpoint-key; default with --checkpoint-key: the sidecar ID.record.checkpoint beside the record when present): CHECKPOINT_INVALID, CHECKPOINT_MISMATCH, TRUNCATED; level server when one counts every step")
	fs.StringVar(&f.Rotations, "key-rotations", "", "a server's key-rotation notes `FILE` (DATA/key-rotations, or its /v1/key rotations): the keys a --checkpoint-key or --pubkey handed over to are trusted too (docs/key-rotation.md)")
	fs.Var(&f.CheckpointKeys, "checkpoint-key", "pinned server key `PUB` for checkpoints: an SPKI PEM file or a file holding a note verifier key NAME+HASH+KEY (repeatable)")
	fs.StringVar(&f.LogPolicy, "log-policy", "", "C2SP tlog-policy `FILE` (trusted log keys, witness keys, quorum): check the record's tlog-proof offline; LOG_PROOF_INVALID, LOG_UNTRUSTED, WITNESS_QUORUM; level logged when the quorum holds")
	fs.StringVar(&f.LogProof, "log-proof", "", "the record's C2SP tlog-proof `FILE` (default: RECORD with .json replaced by .tlog-proof)")
	fs.StringVar(&f.LogTiles, "log-tiles", "", "the log's tiles, a tlog-tiles `DIR` (a copy of the log) or URL (http://HOST/v1/log/; $LOGBOOK_SERVER_READ_TOKEN, else $LOGBOOK_SERVER_TOKEN, when set, goes as the bearer token: a server's reads need its read token): for --log-consistency, and with --log-policy the freshness check: every leaf after the record's own, up to the log's latest checkpoint, is read, and a later checkpoint of the record's session refuses it (TRUNCATED)")
	f.Gate.Register(fs)
	fs.BoolVar(&f.RequireAttested, "require-attested", false, "refuse a record whose event steps do not each name a developer a fleet's server checked (ACTOR_UNATTESTED), or name two (ACTOR_MISMATCH) (logbook-server --fleet; docs/fleet.md); needs level server or logged")
	fs.BoolVar(&f.RequireManaged, "require-managed", false, "refuse (HOOKS_NOT_MANAGED) a record without a server's note that the session's hooks came from the harness's managed settings (logbook-server --managed-settings; docs/harnesses.md); needs level server or logged")
}

// Load reads what holds for every record: the signers, the policy files,
// the checkpoints and their keys (extended by the key rotations) and the
// gate's keys. Record adds what each record has beside it.
func (f *Flags) Load() (verdict.Inputs, error) {
	in := verdict.Inputs{RequireManaged: f.RequireManaged, RequireAttested: f.RequireAttested}
	var err error
	if in.Pinned, err = f.Pinned(); err != nil {
		return in, err
	}
	if in.Revoked, err = keys.ReadPublicFiles("--revoked", f.Revoked); err != nil {
		return in, err
	}
	if in.Policy, err = f.Policy(); err != nil {
		return in, err
	}
	if in.Checkpoints, in.CheckpointKeys, err = f.ReadCheckpoints(); err != nil {
		return in, err
	}
	if in.Gate, err = f.Gate.Load(); err != nil {
		return in, err
	}
	if in.Pinned, in.CheckpointKeys, err = f.extend(in.Pinned, in.CheckpointKeys); err != nil {
		return in, err
	}
	return in, nil
}

// Record is in with what the record at path has beside it, or the bundle
// b (nil for none) holds: its checkpoints when --checkpoint-key came
// without --checkpoint (a server's sidecar, ID.record.checkpoint; none
// there is level local, not an error), and with --log-policy its proof of
// logging (--log-proof, else the bundle's, else the sidecar
// ID.record.tlog-proof) and, with --log-tiles, the log's later leaves.
func (f *Flags) Record(in verdict.Inputs, path string, b *bundle.Bundle) (verdict.Inputs, error) {
	var err error
	if in.Log, err = f.logInputs(path, b); err != nil {
		return in, err
	}
	if len(f.Checkpoints) == 0 && len(in.CheckpointKeys) > 0 {
		if b != nil {
			in.Checkpoints = b.Checkpoints
		} else if side := CheckpointSidecar(path); isRegular(side) {
			text, err := readSmall(side, checkpoint.MaxNote)
			if err != nil {
				return in, err
			}
			in.Checkpoints = [][]byte{text}
		}
	}
	return in, nil
}

// Pinned reads the --pubkey keys.
func (f *Flags) Pinned() ([]ed25519.PublicKey, error) {
	return keys.ReadPublicFiles("--pubkey", f.Pubkeys)
}

// Policy reads the files of the policy checks (policy.Load).
func (f *Flags) Policy() (policy.Options, error) {
	return policy.Load(policy.Files{TSARoots: f.TSARoots, IdentityRoots: f.IdentityRoots, Trusted: f.Trusted,
		Attestations: f.Attestations, AttestorKeys: f.AttestorKeys, Bundles: f.Bundles})
}

// ReadCheckpoints reads --checkpoint-key and --checkpoint. A checkpoint
// over checkpoint.MaxNote bytes is read to one byte past it, and refused
// as too large by the verdict: no checkpoint is that large.
func (f *Flags) ReadCheckpoints() ([][]byte, []checkpoint.Key, error) {
	if len(f.Checkpoints) > 0 && len(f.CheckpointKeys) == 0 {
		return nil, nil, errors.New("--checkpoint needs at least one --checkpoint-key to verify it under")
	}
	var ks []checkpoint.Key
	for _, file := range f.CheckpointKeys {
		text, err := readSmall(file, checkpoint.MaxNote)
		if err != nil {
			return nil, nil, err
		}
		if len(text) > checkpoint.MaxNote {
			return nil, nil, fmt.Errorf("--checkpoint-key %s: over %d bytes: not a key", file, checkpoint.MaxNote)
		}
		k, err := verdict.ParseCheckpointKey(file, text)
		if err != nil {
			return nil, nil, err
		}
		ks = append(ks, k)
	}
	var notes [][]byte
	for _, file := range f.Checkpoints {
		text, err := readSmall(file, checkpoint.MaxNote)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, text)
	}
	return notes, ks, nil
}

// extend adds to pinned and ks the keys that the rotation notes (if any)
// hand over to, followed from the keys already trusted for each.
func (f *Flags) extend(pinned []ed25519.PublicKey, ks []checkpoint.Key) ([]ed25519.PublicKey, []checkpoint.Key, error) {
	if f.Rotations == "" {
		return pinned, ks, nil
	}
	data, err := readSmall(f.Rotations, 1<<20)
	if err != nil {
		return nil, nil, err
	}
	if len(pinned) == 0 && len(ks) == 0 {
		return nil, nil, errors.New("--key-rotations needs a --pubkey or --checkpoint-key to follow them from")
	}
	if len(pinned) > 0 {
		more, err := rotation.Extend(data, pinned)
		if err != nil {
			return nil, nil, fmt.Errorf("--key-rotations %s: %v", f.Rotations, err)
		}
		pinned = append(pinned, more...)
	}
	if len(ks) > 0 {
		var pubs []ed25519.PublicKey
		for _, k := range ks {
			pubs = append(pubs, k.Pub)
		}
		more, err := rotation.Extend(data, pubs)
		if err != nil {
			return nil, nil, fmt.Errorf("--key-rotations %s: %v", f.Rotations, err)
		}
		for _, k := range more {
			ks = append(ks, checkpoint.Key{Name: rotation.Origin(data), Pub: k})
		}
	}
	return pinned, ks, nil
}

// CheckpointSidecar is where logbook-server leaves a sealed record's final
// checkpoint: ID.record.json -> ID.record.checkpoint (docs/checkpoint.md).
func CheckpointSidecar(record string) string {
	return strings.TrimSuffix(record, ".json") + ".checkpoint"
}

// readSmall reads at most limit+1 bytes of a file: a file that never ends
// (/dev/zero, a device) or a huge one costs no more than that.
func readSmall(name string, limit int64) ([]byte, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", name)
	}
	return io.ReadAll(io.LimitReader(file, limit+1))
}

func isRegular(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}
