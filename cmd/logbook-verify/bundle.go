package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/bundlecheck"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// extraFlags are the modes beside a record's verdict: bundles and
// evidence (issue 17) and log consistency.
type extraFlags struct {
	bundle     string
	trust      cli.List
	evidence   string
	showBodies string
	// allowAbsent: --evidence passes with recorded bodies the transcript lacks.
	allowAbsent bool
	// allowUnheld: --evidence passes although the record holds no digest
	// of the tool results the model read (no PostToolBatch steps).
	allowUnheld bool
	consistency bool
}

func (e *extraFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.bundle, "bundle", "", "check a hand-over bundle `FILE` (docs/bundle.md) offline: its record, signer key, attestations, checkpoints (under --checkpoint-key) and proof of logging (under --log-policy)")
	fs.Var(&e.trust, "trust", "with --bundle: PEM `FILE` of trusted signer public keys (repeatable; a file may hold several); without it the bundle's own key is used, which proves integrity only")
	fs.StringVar(&e.evidence, "evidence", "", "check a Claude Code transcript `FILE` (.jsonl; sub-agent transcripts beside it are read too) against the record's body digests")
	fs.BoolVar(&e.allowAbsent, "allow-absent", false, "with --evidence: pass although the transcript lacks calls or bodies the record has (a transcript cut short or kept in part)")
	fs.BoolVar(&e.allowUnheld, "allow-unheld", false, "with --evidence: pass although the record holds no digest of the tool results the model read (a record without PostToolBatch steps: older Claude Code, or made from a transcript), so an edit of that text cannot be seen")
	fs.StringVar(&e.showBodies, "show-bodies", "", "with --evidence: print the transcript's bodies for `differs|all` calls (nothing of them is printed otherwise)")
	fs.BoolVar(&e.consistency, "log-consistency", false, "logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW: show that log checkpoint NEW extends OLD (the log never rewrote its past)")
}

// BundleKeyMismatch: the bundle's signerKey is not the key that signed
// its record.
const BundleKeyMismatch = bundlecheck.KeyMismatch

// runBundle reads a bundle and the receiver's keys and policies, and
// prints internal/bundlecheck's verdict. Exit 0 accepted, 1 refused, 2
// usage or I/O error.
func runBundle(ex extraFlags, vf verdictflags.Flags, asJSON bool, stdout, stderr io.Writer) int {
	ioError := func(err error) int {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if asJSON {
			verdict.IOError(stdout, "", err)
		}
		return 2
	}
	data, err := readJSON(ex.bundle, maxRecord)
	if err != nil {
		return ioError(err)
	}
	b, refused := bundlecheck.Open(data)
	if refused != nil {
		bundlecheck.Result{Outcome: *refused}.Write(stdout, asJSON)
		return 1
	}
	o, err := vf.Bundle(ex.trust)
	if err != nil {
		return ioError(err)
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
