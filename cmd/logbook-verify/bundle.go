package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/bundlecheck"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
)

// extraFlags are the bundle and evidence options (issue 17).
type extraFlags struct {
	bundle     string
	trust      cli.List
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
// its record.
const BundleKeyMismatch = bundlecheck.KeyMismatch

// runBundle reads a bundle and the receiver's keys and policies, and
// prints internal/bundlecheck's verdict. Exit 0 accepted, 1 refused, 2
// usage or I/O error.
func runBundle(ex extraFlags, pubkeys cli.List, pf policyFlags, cf checkpointFlags, lf logFlags, asJSON bool, stdout, stderr io.Writer) int {
	ioError := func(err error) int {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if asJSON {
			printJSON(stdout, "", record.Result{Detail: err.Error()}, false, policy.Report{})
		}
		return 2
	}
	data, err := readlimit.Large(ex.bundle, maxRecord)
	if err != nil {
		return ioError(err)
	}
	b, refused := bundlecheck.Open(data)
	if refused != nil {
		bundlecheck.Result{Outcome: *refused}.Write(stdout, asJSON)
		return 1
	}
	var o bundlecheck.Options
	if o.Trusted, err = keys.ReadPublicSet("--trust", append(append([]string{}, ex.trust...), pubkeys...)); err != nil {
		return ioError(err)
	}
	if o.Policy, err = pf.load(); err != nil {
		return ioError(err)
	}
	if o.Checkpoints, o.CheckpointKeys, err = cf.load(); err != nil {
		return ioError(err)
	}
	if lf.proof != "" || lf.tiles != "" {
		return ioError(fmt.Errorf("--bundle takes its proof of logging from the bundle: --log-proof and --log-tiles do not apply"))
	}
	if lf.policy != "" {
		if o.LogPolicy, err = readPolicy(lf.policy); err != nil {
			return ioError(err)
		}
	}
	r, err := bundlecheck.Check(b, o)
	if err != nil {
		return ioError(err)
	}
	r.Write(stdout, asJSON)
	if r.Result.OK {
		return 0
	}
	return 1
}
