// Command logbook-verify checks a record offline and names every refusal
// with a code (spec §7); it also checks bundles, runback cassettes, log
// consistency and transcripts as evidence, and follows a live session.
// Every mode is in the synopsis below (logbook-verify --help).
//
//	logbook-verify [--json] [--pubkey FILE]... [--checkpoint FILE --checkpoint-key PUB]... RECORD...
//	logbook-verify --follow DIR|FILE|SESSION
//
// Exit status: 0 accepted, 1 refused, 2 usage or I/O error (a cassette:
// 0 valid, 1 invalid, 2 unverified).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/commitcheck"
	"github.com/logbook-project/logbook/internal/filekind"
	"github.com/logbook-project/logbook/internal/membudget"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

func main() {
	// A record's parsed tree is most of the heap and it only grows:
	// collecting less often saves repeated marking of it. $GOGC, when
	// set, wins: a machine short of memory trades time for it
	// (BenchmarkSealVerify shows both).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const synopsis = `logbook-verify [--json] [--pubkey FILE]... [--revoked FILE]... [--tsa-roots PEM]
               [--identity-roots PEM --trusted-identities JSON]
               [--attestation FILE]... [--attestation-bundle FILE]... [--attestor-key FILE]...
               [--checkpoint FILE --checkpoint-key PUB]...
               [--log-policy FILE [--log-proof FILE] [--log-tiles DIR|URL]] [--require-managed] RECORD...
logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW
logbook-verify --follow DIR|FILE|SESSION
logbook-verify [--json] [--strict] [--pubkey FILE]... [--revoked FILE]... [--hmac-key FILE]... CASSETTE  (runback; docs/runback.md)
logbook-verify --bundle FILE [--trust KEYS]... [--attestor-key FILE]... [--checkpoint-key PUB]... [--log-policy FILE] [--tsa-roots PEM]
logbook-verify RECORD --evidence TRANSCRIPT.jsonl [--allow-absent] [--allow-unheld] [--show-bodies differs|all]
logbook-verify --commits BASE..HEAD --records DIR [--repo DIR] [--require-record agent|all] [--require-level LEVEL] [--pubkey FILE]... [--policy-key PUB]... [--json]

The level of an OK: local, server (a server's signed checkpoint covers the
record) or logged (and a transparency log holds that checkpoint).
` + verdict.LocalWarning + `.`

func run(args []string, stdout, stderr io.Writer) int {
	if code, ok := runCassette(args, stdout, stderr); ok {
		return code
	}
	fs := flag.NewFlagSet("logbook-verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per record: ok, code, detail, recordId, keyId, stepCount, level, timestamp, identity, attestations, checkpoints, log, gaps, warnings (and file, with several records)")
	var vf verdictflags.Flags
	vf.Register(fs)
	var ex extraFlags
	ex.register(fs)
	var cx cassetteFlags
	cx.register(fs)
	cf := commitcheck.NewFlags(fs)
	followArg := fs.String("follow", "", "watch an in-progress session as the agent works: a session `DIR`, an ID.steps.jsonl file, or a session id; prints each step as it lands and exits 1 with an alarm code when a step seen earlier changes")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	// Flags may follow the record: logbook-verify RECORD --evidence FILE.
	if err := cli.ParseInterleaved(fs, fs.Args()); err != nil {
		cli.UsageError(fs, err, stderr)
		return 2
	}
	if err := cx.check(fs.Args()); err != nil {
		fmt.Fprintln(stderr, "logbook-verify:", err)
		return 2
	}
	if len(vf.Revoked) > 0 && (ex.bundle != "" || ex.evidence != "" || ex.consistency || *followArg != "") {
		fmt.Fprintln(stderr, "logbook-verify: --revoked applies to RECORD and CASSETTE arguments, not to --bundle, --evidence, --log-consistency or --follow")
		return 2
	}
	if cf.Range != "" {
		return cf.Run(&vf, fs.Args(), *asJSON, stdout, stderr)
	}
	if *followArg != "" && fs.NArg() == 0 {
		return runFollow(*followArg, stdout, stderr)
	}
	if ex.consistency {
		return runConsistency(vf, fs.Args(), *asJSON, stdout, stderr)
	}
	if ex.bundle != "" {
		if fs.NArg() != 0 {
			fmt.Fprintln(stderr, "logbook-verify: --bundle takes no RECORD")
			return 2
		}
		if len(ex.trust)+len(vf.Pubkeys) == 0 {
			// A bundle carries its own signer key: checked under it, a
			// bundle re-signed by anyone passes. As cosign will not verify
			// without a key or an identity, nor does this.
			fmt.Fprintln(stderr, "logbook-verify: --bundle needs --trust KEYS: the public keys of the signers you trust (a bundle's own signerKey proves only that the record is unchanged since someone signed it)")
			return 2
		}
		return runBundle(ex, vf, *asJSON, stdout, stderr)
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "logbook-verify: no RECORD given (run 'logbook-verify --help' for usage)")
		return 2
	}
	if ex.evidence != "" {
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "logbook-verify: --evidence checks one RECORD")
			return 2
		}
		return runEvidence(fs.Arg(0), ex, vf, *asJSON, stdout, stderr)
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
	in, err := vf.Load()
	if err != nil {
		return ioError("", err)
	}
	// Several records: one line each, named, and the worst status.
	status := 0
	for _, file := range fs.Args() {
		name := ""
		if fs.NArg() > 1 {
			name = file
		}
		rin, err := vf.Record(in, file, nil)
		if err != nil {
			status = max(status, ioError(name, err))
			continue
		}
		code := verifyFile(file, name, rin, *asJSON, stdout, stderr, ioError)
		status = max(status, code)
	}
	return status
}

// verifyFile verifies one record file and prints its verdict, prefixed
// with name when not empty. It returns 0 accepted, 1 refused, 2 I/O.
func verifyFile(file, name string, in verdict.Inputs, asJSON bool, stdout, stderr io.Writer, ioError func(string, error) int) int {
	data, err := readInput(file, maxRecord)
	if line, ok := filekind.Unsealed(file); ok && err != nil {
		// No record, but the session's end left word that it could not
		// seal: that is the verdict, not a missing file.
		if name != "" {
			fmt.Fprintf(stdout, "%s: ", name)
		}
		fmt.Fprintln(stdout, line)
		return 1
	}
	if err != nil {
		return ioError(name, err)
	}
	if err := filekind.NotARecord(file, data); err != nil {
		return ioError(name, err)
	}
	// The file is live throughout; a record whose members are not in
	// the sealer's order also holds one canonical copy of it (the signed
	// bytes, record.Verify), and the limit leaves room for that.
	membudget.ForInput(int64(len(data)), 2)
	in.Record = data
	out := verdict.Run(in)
	out.File = name
	res := out.Result
	hint := ""
	if !res.OK && (res.Code == logbook.Shape || res.Code == logbook.NotJSON) {
		hint = filekind.Hint(file, data)
	}
	if asJSON {
		verdict.WriteJSON(stdout, out)
		if hint != "" {
			fmt.Fprintln(stderr, "logbook-verify: hint:", hint)
		}
	} else {
		if name != "" {
			fmt.Fprintf(stdout, "%s: ", name)
		}
		verdict.WriteHuman(stdout, out)
		if hint != "" {
			fmt.Fprintln(stdout, "hint:", hint)
		}
		if res.OK {
			if notice := filekind.SealedLater(data); notice != "" {
				fmt.Fprintln(stdout, notice)
			}
		}
	}
	if res.OK {
		return 0
	}
	return 1
}

// maxRecord bounds a record, a bundle or an --evidence transcript
// (docs/limits.md); a variable so that tests can lower it.
var maxRecord int64 = readlimit.Record
