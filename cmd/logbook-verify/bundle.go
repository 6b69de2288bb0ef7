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
	"os"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/verdict"
)

// extraFlags are the bundle and evidence options (issue 17).
type extraFlags struct {
	bundle     string
	trust      pubkeyFlag
	evidence   string
	showBodies string
}

func (e *extraFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.bundle, "bundle", "", "check a hand-over bundle `FILE` (docs/bundle.md) offline: its record, signer key, attestations and checkpoints")
	fs.Var(&e.trust, "trust", "with --bundle: PEM `FILE` of trusted signer public keys (repeatable; a file may hold several); without it the bundle's own key is used, which proves integrity only")
	fs.StringVar(&e.evidence, "evidence", "", "check a Claude Code transcript `FILE` (.jsonl; sub-agent transcripts beside it are read too) against the record's body digests")
	fs.StringVar(&e.showBodies, "show-bodies", "", "with --evidence: print the transcript's bodies for `differs|all` calls (nothing of them is printed otherwise)")
}

// BundleKeyMismatch: the bundle's signerKey is not the key that signed
// its record (the bundle's own part is damaged or swapped).
const BundleKeyMismatch = format.BundleKeyMismatch

// readTrust reads every PEM public key in the files.
func readTrust(files []string) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	for _, f := range files {
		text, err := os.ReadFile(f)
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
// TRUNCATED, and the assurance level). The bundle's container gets
// BUNDLE_INVALID, and a signerKey that did not sign the record
// BUNDLE_KEY_MISMATCH.
func runBundle(ex extraFlags, pubkeys pubkeyFlag, pf policyFlags, cf checkpointFlags, asJSON bool, stdout, stderr io.Writer) int {
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
	data, err := os.ReadFile(ex.bundle)
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
	}
	// The key part first: a record whose signature verifies under another
	// key than the bundle names is a damaged bundle, whatever else holds.
	first := record.Verify(b.Record, record.Options{Pinned: in.Pinned})
	if first.Facts != nil && !bytes.Equal(first.Facts.PublicKey, bundled) && (first.OK || first.Code == format.SignerNotTrusted) {
		return refused(BundleKeyMismatch, "the bundle's signerKey is not the key that signed its record")
	}
	out := verdict.Run(in)
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

// parseInterleaved parses flags wherever they stand, so that
// `logbook-verify RECORD --evidence FILE` reads as it is written; the
// positional arguments are left in fs.Args(). After "--" nothing is a flag.
func parseInterleaved(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
