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
	"strings"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/membudget"
	"github.com/logbook-project/logbook/internal/policy"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/unsealed"
	"github.com/logbook-project/logbook/internal/verdict"
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
               [--attestation FILE]... [--attestor-key FILE]...
               [--checkpoint FILE --checkpoint-key PUB]...
               [--log-policy FILE [--log-proof FILE] [--log-tiles DIR|URL]] [--require-managed] RECORD...
logbook-verify --log-consistency --log-policy FILE --log-tiles DIR|URL OLD NEW
logbook-verify --follow DIR|FILE|SESSION
logbook-verify [--json] [--strict] [--pubkey FILE]... [--revoked FILE]... [--hmac-key FILE]... CASSETTE  (runback; docs/runback.md)
logbook-verify --bundle FILE [--trust KEYS]... [--attestor-key FILE]... [--checkpoint-key PUB]... [--log-policy FILE] [--tsa-roots PEM]
logbook-verify RECORD --evidence TRANSCRIPT.jsonl [--allow-absent] [--show-bodies differs|all]

The level of an OK: local, server (a server's signed checkpoint covers the
record) or logged (and a transparency log holds that checkpoint).
` + verdict.LocalWarning + `.`

func run(args []string, stdout, stderr io.Writer) int {
	if code, ok := runCassette(args, stdout, stderr); ok {
		return code
	}
	fs := flag.NewFlagSet("logbook-verify", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per record: ok, code, detail, recordId, keyId, stepCount, level, timestamp, identity, attestations, checkpoints, log, gaps, warnings (and file, with several records)")
	var pubkeys cli.List
	fs.Var(&pubkeys, "pubkey", "pinned signer: SPKI PEM public key `FILE` (repeatable); any other signer is SIGNER_NOT_TRUSTED")
	var pf policyFlags
	pf.register(fs)
	var ex extraFlags
	ex.register(fs)
	var cf checkpointFlags
	cf.register(fs)
	var lf logFlags
	lf.register(fs)
	var cx cassetteFlags
	var gf verdict.GateFlags
	gf.Register(fs)
	cx.register(fs)
	requireManaged := fs.Bool("require-managed", false, "refuse (HOOKS_NOT_MANAGED) a record without a server's note that the session's hooks came from the harness's managed settings (logbook-server --managed-settings; docs/harnesses.md); needs level server or logged")
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
	if len(cx.revoked) > 0 && (ex.bundle != "" || ex.evidence != "" || lf.consistency || *followArg != "") {
		fmt.Fprintln(stderr, "logbook-verify: --revoked applies to RECORD and CASSETTE arguments, not to --bundle, --evidence, --log-consistency or --follow")
		return 2
	}
	if *followArg != "" && fs.NArg() == 0 {
		return runFollow(*followArg, stdout, stderr)
	}
	if lf.consistency {
		return runConsistency(lf, fs.Args(), *asJSON, stdout, stderr)
	}
	if ex.bundle != "" {
		if fs.NArg() != 0 {
			fmt.Fprintln(stderr, "logbook-verify: --bundle takes no RECORD")
			return 2
		}
		if len(ex.trust)+len(pubkeys) == 0 {
			// A bundle carries its own signer key: checked under it, a
			// bundle re-signed by anyone passes. As cosign will not verify
			// without a key or an identity, nor does this.
			fmt.Fprintln(stderr, "logbook-verify: --bundle needs --trust KEYS: the public keys of the signers you trust (a bundle's own signerKey proves only that the record is unchanged since someone signed it)")
			return 2
		}
		return runBundle(ex, pubkeys, pf, cf, lf, *asJSON, stdout, stderr)
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
		return runEvidence(fs.Arg(0), ex, pubkeys, *asJSON, stdout, stderr)
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
	in.RequireManaged = *requireManaged
	var err error
	if in.Pinned, err = keys.ReadPublicFiles("--pubkey", pubkeys); err != nil {
		return ioError("", err)
	}
	if in.Revoked, err = keys.ReadPublicFiles("--revoked", cx.revoked); err != nil {
		return ioError("", err)
	}
	if in.Policy, err = pf.load(); err != nil {
		return ioError("", err)
	}
	if in.Checkpoints, in.CheckpointKeys, err = cf.load(); err != nil {
		return ioError("", err)
	}
	if in.Gate, err = gf.Load(); err != nil {
		return ioError("", err)
	}
	if in.Pinned, in.CheckpointKeys, err = cf.extend(in.Pinned, in.CheckpointKeys); err != nil {
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
		if len(cf.files) == 0 && len(rin.CheckpointKeys) > 0 {
			// The server's checkpoint beside the record, as
			// logbook-review reads it: --checkpoint-key alone checks it.
			if rin.Checkpoints, err = sidecarCheckpoint(file); err != nil {
				status = max(status, ioError(name, err))
				continue
			}
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
	if n, ok := unsealed.ForRecord(file); ok && err != nil {
		// No record, but the session's end left word that it could not
		// seal: that is the verdict, not a missing file.
		if name != "" {
			fmt.Fprintf(stdout, "%s: ", name)
		}
		fmt.Fprintf(stdout, "UNSEALED session %s: it ended at %s without being sealed (%s); seal it with: %s\n", n.Session, n.At, n.Reason, n.Fix)
		return 1
	}
	if err != nil {
		return ioError(name, err)
	}
	if err := notARecord(file, data); err != nil {
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
	if !res.OK && (res.Code == format.Shape || res.Code == format.NotJSON) {
		hint = whatFile(file, data)
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
		if note := `"data":{"event":"` + unsealed.Event + `"}`; res.OK && containsFrom(data, []byte(note), strings.IndexByte(note, '{')) {
			fmt.Fprintln(stdout, "notice: the session's end found no signing key and left it unsealed; it was sealed later (see its "+unsealed.Event+" note)")
		}
	}
	if res.OK {
		return 0
	}
	return 1
}

// printJSON writes the --json object of a verdict reached without
// checkpoints (a bundle's record, --evidence): internal/verdict prints it,
// as for any record, at level local when accepted.
func printJSON(w io.Writer, file string, r record.Result, pinned bool, rep policy.Report) {
	verdict.WriteJSON(w, outcome(file, r, pinned, rep))
}

// printHuman is printJSON's one-line form.
func printHuman(w io.Writer, r record.Result, pinned bool, rep policy.Report) {
	verdict.WriteHuman(w, outcome("", r, pinned, rep))
}

func outcome(file string, r record.Result, pinned bool, rep policy.Report) verdict.Outcome {
	o := verdict.Outcome{Result: r, Pinned: pinned, Report: rep, File: file}
	if r.OK {
		o.Level = checkpoint.LevelLocal
	}
	return o
}

// maxRecord bounds a record, a bundle or an --evidence transcript
// (docs/limits.md); a variable so that tests can lower it.
var maxRecord int64 = readlimit.Record
