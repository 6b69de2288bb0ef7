// Command logbook-attest makes an attestation about a sealed record: a DSSE
// envelope, signed with the attestor's Ed25519 key, kept beside the record
// (never inside it) and checked by logbook-verify --attestation (spec §7
// step 8).
//
//	logbook-attest --type witness  --key FILE --record RECORD --out FILE [--nonce TEXT] [--pubkey FILE]...
//	logbook-attest --type recorder --key FILE --record RECORD --out FILE
//	               --recorder-name NAME --recorder-version VERSION (--recorder-sha256 HEX | --recorder-binary FILE)
//	logbook-attest --type session  --key FILE --record RECORD --out FILE [--pubkey FILE]...
//	               [--checkpoint-key PUB]... [--log-policy FILE [--log-proof FILE]] [--policy-key FILE]...
//
// A witness attests that it saw this record (its recordId), signed under
// its keyId, at observedAt (the clock, or LOGBOOK_NOW). A recorder
// attestation names the program that captured the steps, as whoever built
// or vetted that program knows it; logbook-verify compares it with the
// record's session.recorder. The record must verify (and, with --pubkey,
// be signed by a pinned key) before anything is attested. A session
// attestation is the standard shape (docs/attestation.md): an in-toto
// Statement about the session's commits and the record file, with what
// verifying the record found, as a Sigstore bundle that cosign
// verify-blob-attestation and sigstore-go check (internal/sessionattest).
//
// Exit status: 0 written, 1 the record was refused, 2 usage or I/O error.
package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/sessionattest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

type config struct {
	typ, keyFile, recordFile, out, nonce string
	recName, recVersion, recSHA, recBin  string
	pubkeys                              cli.List
	session                              sessionattest.Flags
}

const synopsis = `logbook-attest --type witness  --key FILE --record RECORD --out FILE [--nonce TEXT] [--pubkey FILE]...
logbook-attest --type recorder --key FILE --record RECORD --out FILE
               --recorder-name NAME --recorder-version VERSION (--recorder-sha256 HEX | --recorder-binary FILE)
logbook-attest --type session  --key FILE --record RECORD --out FILE [--pubkey FILE]...
               [--checkpoint-key PUB]... [--log-policy FILE [--log-proof FILE]] [--policy-key FILE]...`

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	var c config
	fs := flag.NewFlagSet("logbook-attest", flag.ContinueOnError)
	fs.StringVar(&c.typ, "type", "", "`TYPE` of attestation: witness (the record existed, unchanged, when you saw it), recorder (the binary that recorded it is the one you vouch for) or session (an in-toto statement of the session's commits and record, as a Sigstore bundle: docs/attestation.md)")
	fs.StringVar(&c.keyFile, "key", "", "the attestor's PKCS#8 PEM Ed25519 private key `FILE` (logbook-seal --new-key makes one)")
	fs.StringVar(&c.recordFile, "record", "", "the sealed `RECORD` to attest")
	fs.StringVar(&c.out, "out", "", "attestation `FILE` to write (DSSE JSON; with --type session, a Sigstore bundle)")
	fs.StringVar(&c.nonce, "nonce", "", "a `TEXT` the attestor was asked to include (optional)")
	fs.StringVar(&c.recName, "recorder-name", "", "recorder: the program's `NAME` (as in session.recorder.name)")
	fs.StringVar(&c.recVersion, "recorder-version", "", "recorder: the program's `VERSION`")
	fs.StringVar(&c.recSHA, "recorder-sha256", "", "recorder: SHA-256 of the program's executable, 64 lowercase `HEX` digits")
	fs.StringVar(&c.recBin, "recorder-binary", "", "recorder: the program's executable `FILE`, hashed here (instead of --recorder-sha256)")
	fs.Var(&c.pubkeys, "pubkey", "attest only a record signed by this SPKI PEM public key `FILE` (repeatable)")
	c.session.Register(fs)
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-attest: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	code, err := attestRecord(c, stdout, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-attest:", err)
	}
	return code
}

func attestRecord(c config, stdout io.Writer, getenv func(string) string) (int, error) {
	if c.keyFile == "" || c.recordFile == "" || c.out == "" {
		return 2, errors.New("--key, --record and --out are required")
	}
	if f := c.session.Given(); f != "" && c.typ != sessionattest.Type {
		return 2, fmt.Errorf("%s belongs to --type session", f)
	}
	st := attest.Statement{Type: c.typ, Nonce: c.nonce}
	switch c.typ {
	case sessionattest.Type:
		if c.recName != "" || c.recVersion != "" || c.recSHA != "" || c.recBin != "" || c.nonce != "" {
			return 2, errors.New("--recorder-* and --nonce do not go with --type session")
		}
		return c.session.Run(c.keyFile, c.recordFile, c.out, c.pubkeys, stdout)
	case attest.Witness:
		if c.recName != "" || c.recVersion != "" || c.recSHA != "" || c.recBin != "" {
			return 2, errors.New("--recorder-* flags belong to --type recorder")
		}
	case attest.Recorder:
		r, err := recorderFlags(c)
		if err != nil {
			return 2, err
		}
		st.Recorder = r
	default:
		return 2, fmt.Errorf("--type %q: want %s, %s or %s", c.typ, attest.Witness, attest.Recorder, sessionattest.Type)
	}
	priv, err := keys.ReadPrivate("--key", c.keyFile)
	if err != nil {
		return 2, err
	}
	var opt logbook.VerifyOptions
	if opt.Pinned, err = keys.ReadPublicFiles("--pubkey", c.pubkeys); err != nil {
		return 2, err
	}
	data, err := readlimit.Large(c.recordFile, readlimit.Record)
	if err != nil {
		return 2, err
	}
	v, err := logbook.Verify(data, opt)
	if err != nil {
		return 1, fmt.Errorf("%s is refused, nothing attested: %v", c.recordFile, err)
	}
	if st.ObservedAt, err = cli.Now(getenv); err != nil {
		return 2, err
	}
	st.RecordID, st.KeyID = v.RecordID, v.KeyID
	env, err := attest.Sign(st, priv)
	if err != nil {
		return 2, err
	}
	if err := durable.WriteFile(c.out, env); err != nil {
		return 2, fmt.Errorf("write %s: %w", c.out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s attestation of record %s (key %s) by attestor %s\n",
		c.out, st.Type, st.RecordID, st.KeyID, attest.KeyID(priv.Public().(ed25519.PublicKey)))
	return 0, nil
}

func recorderFlags(c config) (*format.Recorder, error) {
	if c.recName == "" || c.recVersion == "" {
		return nil, errors.New("--type recorder needs --recorder-name and --recorder-version")
	}
	r := &format.Recorder{Name: c.recName, Version: c.recVersion, SHA256: c.recSHA}
	switch {
	case (c.recSHA == "") == (c.recBin == ""):
		return nil, errors.New("--type recorder needs one of --recorder-sha256 and --recorder-binary")
	case c.recBin != "":
		sum, err := digest.File(c.recBin)
		if err != nil {
			return nil, err
		}
		r.SHA256 = sum
	}
	return r, nil
}
