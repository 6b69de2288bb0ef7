// Command logbook-verify checks a record offline and names every refusal
// with a code (spec §7).
//
//	logbook-verify [--json] [--pubkey FILE]... [--tsa-roots PEM]
//	               [--identity-roots PEM --trusted-identities JSON]
//	               [--attestation FILE]... [--attestor-key FILE]... RECORD
//	logbook-verify --follow DIR|FILE|SESSION
//
// Exit status: 0 accepted, 1 refused, 2 usage or I/O error.
package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/verdict"
)

func main() {
	// A record's parsed tree is most of the heap and it only grows:
	// collecting less often saves repeated marking of it.
	debug.SetGCPercent(400)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type pubkeyFlag []string

func (p *pubkeyFlag) String() string     { return fmt.Sprint(*p) }
func (p *pubkeyFlag) Set(v string) error { *p = append(*p, v); return nil }

const synopsis = `logbook-verify [--json] [--pubkey FILE]... [--tsa-roots PEM]
               [--identity-roots PEM --trusted-identities JSON]
               [--attestation FILE]... [--attestor-key FILE]...
               [--checkpoint FILE --checkpoint-key PUB]...
               [--log-policy FILE [--log-proof FILE]] RECORD...
logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW
logbook-verify --follow DIR|FILE|SESSION`

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logbook-verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per record: ok, code, detail, recordId, keyId, stepCount, level, timestamp, identity, attestations, checkpoints, log, gaps (and file, with several records)")
	var pubkeys pubkeyFlag
	fs.Var(&pubkeys, "pubkey", "pinned signer: SPKI PEM public key `FILE` (repeatable); any other signer is SIGNER_NOT_TRUSTED")
	var pf policyFlags
	pf.register(fs)
	var cf checkpointFlags
	cf.register(fs)
	var lf logFlags
	lf.register(fs)
	followArg := fs.String("follow", "", "watch an in-progress session as the agent works: a session `DIR`, an ID.steps.jsonl file, or a session id; prints each step as it lands and exits 1 with an alarm code when a step seen earlier changes")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	if *followArg != "" && fs.NArg() == 0 {
		return runFollow(*followArg, stdout, stderr)
	}
	if lf.consistency {
		return runConsistency(lf, fs.Args(), *asJSON, stdout, stderr)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "logbook-verify: no RECORD given (run 'logbook-verify --help' for usage)")
		return 2
	}
	// An I/O error reaches a --json reader as JSON too (ok false, code
	// null), and as text on stderr; the exit status is 2.
	ioError := func(file string, err error) int {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		if *asJSON {
			verdict.IOError(stdout, file, err)
		}
		return 2
	}
	var in verdict.Inputs
	for _, f := range pubkeys {
		text, err := os.ReadFile(f)
		if err != nil {
			return ioError("", err)
		}
		pub, err := keys.ParsePublicKeyPEM(text)
		if err != nil {
			return ioError("", fmt.Errorf("--pubkey %s: %v", f, err))
		}
		in.Pinned = append(in.Pinned, ed25519.PublicKey(pub))
	}
	var err error
	if in.Policy, err = pf.load(); err != nil {
		return ioError("", err)
	}
	if in.Checkpoints, in.CheckpointKeys, err = cf.load(); err != nil {
		return ioError("", err)
	}
	// Several records: one line each, named, and the worst status.
	status := 0
	for _, file := range fs.Args() {
		name := ""
		if fs.NArg() > 1 {
			name = file
		}
		rin := in
		if rin.Log, err = lf.load(file); err != nil {
			status = max(status, ioError(name, err))
			continue
		}
		code := verifyFile(file, name, rin, *asJSON, stdout, ioError)
		status = max(status, code)
	}
	return status
}

// verifyFile verifies one record file and prints its verdict, prefixed
// with name when not empty. It returns 0 accepted, 1 refused, 2 I/O.
func verifyFile(file, name string, in verdict.Inputs, asJSON bool, stdout io.Writer, ioError func(string, error) int) int {
	data, err := bigbuf.ReadFile(file)
	if err != nil {
		return ioError(name, err)
	}
	if err := notARecord(file, data); err != nil {
		return ioError(name, err)
	}
	in.Record = data
	out := verdict.Run(in)
	out.File = name
	if asJSON {
		verdict.WriteJSON(stdout, out)
	} else {
		if name != "" {
			fmt.Fprintf(stdout, "%s: ", name)
		}
		verdict.WriteHuman(stdout, out)
	}
	if out.Result.OK {
		return 0
	}
	return 1
}
