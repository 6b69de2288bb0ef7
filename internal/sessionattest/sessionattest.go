// Package sessionattest is logbook-attest --type session: it verifies a
// sealed record as logbook-verify does (internal/verdictflags' inputs,
// internal/verdict's order), and signs what that verification found as
// a Sigstore bundle (internal/sigbundle, docs/attestation.md). Nothing is
// attested of a record that is refused, and the level and policies it
// states are the ones this verification reached: with --checkpoint-key,
// server; with --log-policy too, logged, and the proof of logging goes
// into the predicate.
package sessionattest

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/keys"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/sigbundle"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// Type is logbook-attest's --type for a session attestation bundle.
const Type = "session"

// Flags are the verification flags --type session takes beside
// logbook-attest's own (--pubkey is logbook-attest's).
type Flags struct {
	vf verdictflags.Flags
	fs *flag.FlagSet
}

var names = map[string]bool{"checkpoint-key": true, "log-policy": true, "log-proof": true, "policy-key": true, "require-policy": true}

// Register adds them to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	f.fs = fs
	fs.Var(&f.vf.CheckpointKeys, "checkpoint-key", "session: the server's key `PUB` (as logbook-verify takes it): the record's checkpoint sidecar then counts, and the bundle says level server")
	fs.StringVar(&f.vf.LogPolicy, "log-policy", "", "session: C2SP tlog-policy `FILE`: the record's proof of logging (ID.record.tlog-proof, or --log-proof) is checked, and goes into the bundle at level logged")
	fs.StringVar(&f.vf.LogProof, "log-proof", "", "session: the record's tlog-proof `FILE` (default beside the record)")
	f.vf.Gate.Register(fs)
}

// Given names a flag of theirs that was set, "" when none.
func (f *Flags) Given() string {
	given := ""
	f.fs.Visit(func(fl *flag.Flag) {
		if names[fl.Name] && given == "" {
			given = "--" + fl.Name
		}
	})
	return given
}

// Attest verifies the record at file under pubkeys (files; none: any
// signer) and the flags, and returns its bundle signed by priv and the
// facts it states. A refused record is a *format.RefusalError (the
// command's exit 1); any other error is usage or I/O.
func (f *Flags) Attest(pubkeys []string, file string, priv ed25519.PrivateKey) ([]byte, sigbundle.Facts, error) {
	f.vf.Pubkeys = pubkeys
	in, err := f.vf.Load()
	if err != nil {
		return nil, sigbundle.Facts{}, err
	}
	if in, err = f.vf.Record(in, file, nil); err != nil {
		return nil, sigbundle.Facts{}, err
	}
	if in.Record, err = readlimit.Large(file, readlimit.Record); err != nil {
		return nil, sigbundle.Facts{}, err
	}
	var col verdict.Collect
	in.Top, in.EachStep = col.Chain(in.Top, in.EachStep)
	out := verdict.Run(in)
	if err := out.Err(); err != nil {
		return nil, sigbundle.Facts{}, format.AsRefusal(err, out.Result.Code)
	}
	facts := verdict.Facts(in, out, &col)
	b, err := sigbundle.Sign(facts, priv)
	if err != nil {
		return nil, facts, fmt.Errorf("the bundle: %v", err)
	}
	return b, facts, nil
}

// Run is the command: it attests the record at file with the private key
// in keyFile and writes the bundle to out. It returns the exit status: 0
// written, 1 the record was refused, 2 usage or I/O (with the error).
func (f *Flags) Run(keyFile, file, out string, pubkeys []string, stdout io.Writer) (int, error) {
	priv, err := keys.ReadPrivate("--key", keyFile)
	if err != nil {
		return 2, err
	}
	b, facts, err := f.Attest(pubkeys, file, priv)
	if r := (*format.RefusalError)(nil); errors.As(err, &r) {
		return 1, fmt.Errorf("%s is refused, nothing attested: %v", file, err)
	} else if err != nil {
		return 2, err
	}
	if err := durable.WriteFile(out, b); err != nil {
		return 2, fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: session attestation bundle of record %s (session %s, %d commits, level %s) by attestor %s\n",
		out, facts.RecordID, facts.SessionID, len(facts.Commits), facts.Level, attest.KeyID(priv.Public().(ed25519.PublicKey)))
	return 0, nil
}
