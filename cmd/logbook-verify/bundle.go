package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/verdict"
)

// extraFlags are the bundle and evidence options (issue 17).
type extraFlags struct {
	bundle     string
	trust      pubkeyFlag
	evidence   string
	showBodies string
	// allowAbsent: --evidence passes with recorded bodies the transcript lacks.
	allowAbsent bool
}

func (e *extraFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.bundle, "bundle", "", "check a hand-over bundle `FILE` (docs/bundle.md) offline: its record, signer key, attestations, checkpoints (under --checkpoint-key) and proof of logging (under --log-policy)")
	fs.Var(&e.trust, "trust", "with --bundle: PEM `FILE` of trusted signer public keys (repeatable; a file may hold several); without it the bundle's own key is used, which proves integrity only")
	fs.StringVar(&e.evidence, "evidence", "", "check a Claude Code transcript `FILE` (.jsonl; sub-agent transcripts beside it are read too) against the record's body digests")
	fs.BoolVar(&e.allowAbsent, "allow-absent", false, "with --evidence: pass although the transcript lacks calls or bodies the record has (a transcript cut short or kept in part)")
	fs.StringVar(&e.showBodies, "show-bodies", "", "with --evidence: print the transcript's bodies for `differs|all` calls (nothing of them is printed otherwise)")
}

// BundleKeyMismatch: the bundle's signerKey is not the key that signed
// its record (the bundle's own part is damaged or swapped).
const BundleKeyMismatch = format.BundleKeyMismatch

// readTrust reads every PEM public key in the files.
func readTrust(files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		text, err := readlimit.Small(f, readlimit.Key)
		if err != nil {
			return nil, err
		}
		n := 0
		for rest := text; ; {
			var blk *pem.Block
			blk, rest = pem.Decode(rest)
			if blk == nil {
				break
			}
			pub, err := keys.ParsePublicKeyPEM(pem.EncodeToMemory(blk))
			if err != nil {
				return nil, fmt.Errorf("--trust %s: key %d: %v", f, n+1, err)
			}
			out = append(out, pub)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("--trust %s: no PEM public key", f)
		}
	}
	return out, nil
}

// runBundle checks a bundle as its parts would be checked one by one,
// through internal/verdict as any record: the record under the trusted
// keys (spec §7, same codes), the policy checks over the bundle's
// attestations (ATTEST_*) and the record's timestamp under --tsa-roots,
// then the bundle's checkpoints under --checkpoint-key (CHECKPOINT_*,
// TRUNCATED, and the assurance level) and its proof of logging under
// --log-policy (LOG_*, WITNESS_QUORUM, level logged): with the keys for
// every part, the same line and --json bytes as the parts checked
// without a bundle (TestBundleLogged). The bundle's container gets
// BUNDLE_INVALID, and a signerKey that did not sign the record
// BUNDLE_KEY_MISMATCH.
func runBundle(ex extraFlags, pubkeys pubkeyFlag, pf policyFlags, cf checkpointFlags, lf logFlags, asJSON bool, stdout, stderr io.Writer) int {
	ioError := func(err error) int {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if asJSON {
			printJSON(stdout, "", record.Result{Detail: err.Error()}, false, policy.Report{})
		}
		return 2
	}
	refused := func(code format.Code, detail string) int {
		r := record.Result{Code: code, Detail: detail}
		if asJSON {
			printJSON(stdout, "", r, false, policy.Report{})
		} else {
			printHuman(stdout, r, false, policy.Report{})
		}
		return 1
	}
	data, err := readlimit.Large(ex.bundle, maxRecord)
	if err != nil {
		return ioError(err)
	}
	b, err := bundle.Read(data)
	if err != nil {
		return refused(bundle.Invalid, err.(*bundle.Error).Detail)
	}
	bundled, err := keys.ParsePublicKeyPEM([]byte(b.SignerKey))
	if err != nil {
		return refused(bundle.Invalid, "signerKey: "+err.Error())
	}
	trusted, err := readTrust(append(append([]string{}, ex.trust...), pubkeys...))
	if err != nil {
		return ioError(err)
	}
	pinned := len(trusted) > 0
	in := verdict.Inputs{Record: b.Record}
	if pinned {
		in.Pinned = trusted
	}
	if in.Policy, err = pf.load(); err != nil {
		return ioError(err)
	}
	if in.Checkpoints, in.CheckpointKeys, err = cf.load(); err != nil {
		return ioError(err)
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
	if lf.proof != "" || lf.tiles != "" {
		return ioError(fmt.Errorf("--bundle takes its proof of logging from the bundle: --log-proof and --log-tiles do not apply"))
	}
	if lf.policy != "" {
		if in.Log.Policy, err = readPolicy(lf.policy); err != nil {
			return ioError(err)
		}
		if len(b.LogProofs) == 0 {
			return ioError(fmt.Errorf("--log-policy: no proof of logging: the bundle holds none"))
		}
		in.Log.Proof = b.LogProofs[0]
	} else if len(b.LogProofs) > 0 {
		notes = append(notes, fmt.Sprintf("%d bundled proof(s) of logging not checked: pass --log-policy", len(b.LogProofs)))
		if b.LogPolicy != "" {
			sum := sha256.Sum256([]byte(b.LogPolicy))
			notes = append(notes, "the bundled log policy (sha256 "+hex.EncodeToString(sum[:8])+"…) is not trusted: compare it out of band, then pass it as --log-policy")
		}
	}
	out := verdict.Run(in)
	// The key part before any other verdict: a record whose signature
	// verifies (Facts are set once it does, whatever a later step says)
	// under another key than the bundle names is a damaged bundle.
	if f := out.Result.Facts; f != nil && !bytes.Equal(f.PublicKey, bundled) {
		return refused(BundleKeyMismatch, "the bundle's signerKey is not the key that signed its record")
	}
	res := out.Result
	if b.TSARoots != "" {
		sum := sha256.Sum256([]byte(b.TSARoots))
		notes = append(notes, "bundled time-stamping roots (sha256 "+hex.EncodeToString(sum[:8])+"…) are not trusted: compare them out of band, then pass them as --tsa-roots")
	}
	if !pinned && res.OK {
		notes = append(notes, "no --trust: checked under the bundle's own key, which proves integrity only")
	}
	if asJSON {
		if res.OK && len(notes) > 0 {
			out.Result.Detail += "; " + join(notes)
		}
		verdict.WriteJSON(stdout, out)
	} else {
		verdict.WriteHuman(stdout, out)
		for _, n := range notes {
			fmt.Fprintln(stdout, "note:", n)
		}
	}
	if res.OK {
		return 0
	}
	return 1
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
		if bytes.Contains([]byte(k), []byte("-----BEGIN")) {
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

func join(ss []string) string {
	var b bytes.Buffer
	for i, s := range ss {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(s)
	}
	return b.String()
}
