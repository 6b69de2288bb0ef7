// Package reviewcmd is the command logbook-review: its flags, files,
// terminal and pager (the review itself is internal/review's). It is
// built into two executables: logbook-review, and logbook-review-otlp,
// the same command with the OpenTelemetry exporter linked in, which
// logbook-review runs for --otlp and --otlp-logs. The exporter's
// packages (the SDK, gRPC, protobuf: 90 more package initializers) fault
// in 6.5 MiB of the executable at every start, used or not: a third of
// what a review holds beside a 100,000-step record (issue 21).
//
// logbook-review reads a record, or a session still in progress,
// as a reviewer wants it: the verification result first, a summary, then
// one row per tool call, turns under their prompts, sub-agents nested and
// gaps named by toolUseId.
//
//	logbook-review [--json] [--only exec|edit|failed|gaps] [--pubkey FILE]... RECORD|SESSION-ID
//	logbook-review --list [--dir DIR]
//	logbook-review --export BUNDLE [--pubkey FILE] [--checkpoint FILE]... [--attestation FILE]... [--tsa-roots PEM] RECORD
//	logbook-review --jsonl FILE|- RECORD
//	logbook-review [--otlp URL] [--otlp-logs URL] RECORD
//
// Exit status: 0 accepted (or an in-progress chain that holds), 1 refused
// or broken, 2 usage or I/O error.
package reviewcmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/bundle"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/membudget"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/verdict"
	"github.com/logbook-project/logbook/internal/verdictflags"
)

// Run is the command: args without the program's name; it returns the
// exit status.
func Run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return run(args, stdout, stderr, getenv)
}

type options struct {
	dir, only, colour, export, jsonl, otlp, otlpLogs string
	asJSON, list, noPager                            bool
	width                                            int
	// vf are the flags a verdict needs, read as logbook-verify reads
	// them; the words are this command's (--export includes the files).
	vf verdictflags.Flags
}

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	var o options
	fs := flag.NewFlagSet("logbook-review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.dir, "dir", "", "session `DIR` for a SESSION-ID and --list (default $LOGBOOK_DIR, $CLAUDE_PROJECT_DIR/.logbook, ./.logbook)")
	fs.BoolVar(&o.asJSON, "json", false, "print the review as one JSON object")
	fs.StringVar(&o.only, "only", "", "show only calls that are `exec|edit|failed|gaps`")
	fs.IntVar(&o.width, "width", -1, "fit the text to `N` columns (default: the terminal's width; 0: never cut, whole toolUseIds)")
	fs.StringVar(&o.colour, "color", "auto", "colour: `auto` (a terminal only, and not with NO_COLOR), always, never")
	fs.BoolVar(&o.noPager, "no-pager", false, "never pipe the output through a pager")
	fs.BoolVar(&o.list, "list", false, "list the directory's sessions, in progress and sealed")
	fs.Var(&o.vf.Pubkeys, "pubkey", "pinned signer: SPKI PEM public key `FILE` (repeatable)")
	fs.StringVar(&o.export, "export", "", "write a bundle `FILE`: the record, the signer's key and what its checks need (docs/bundle.md)")
	fs.Var(&o.vf.Checkpoints, "checkpoint", "a server's signed checkpoint `FILE`: checked under --checkpoint-key (the level in the verdict), and included by --export (repeatable; default the sidecar ID.record.checkpoint beside the record when present)")
	fs.Var(&o.vf.CheckpointKeys, "checkpoint-key", "pinned server key `PUB` for checkpoints: an SPKI PEM file or a note verifier key file (repeatable)")
	fs.Var(&o.vf.Attestations, "attestation", "DSSE attestation `FILE` about the record: checked under --attestor-key (ATTEST_*), and included by --export (repeatable)")
	fs.Var(&o.vf.AttestorKeys, "attestor-key", "pinned attestor public key `FILE`: attestations are checked under it, and --export includes it (repeatable; the receiver still pins its own)")
	fs.StringVar(&o.vf.TSARoots, "tsa-roots", "", "time-stamping roots PEM `FILE`: the record's token must verify against them (TIMESTAMP_*), and --export includes them")
	fs.StringVar(&o.vf.LogPolicy, "log-policy", "", "C2SP tlog-policy `FILE`: judge the record's proof of logging offline (LOG_PROOF_INVALID, LOG_UNTRUSTED, WITNESS_QUORUM; level logged when the quorum holds); --export includes it as a hint only")
	fs.StringVar(&o.vf.LogProof, "log-proof", "", "the record's C2SP tlog-proof `FILE` (default the sidecar ID.record.tlog-proof beside the record, or the bundle's); --export includes it")
	o.vf.Gate.Register(fs)
	o.vf.Getenv = getenv
	fs.StringVar(&o.jsonl, "jsonl", "", "write the steps as JSON Lines to `FILE` (- for stdout)")
	fs.StringVar(&o.otlp, "otlp", "", "send the calls as OpenTelemetry spans to the OTLP/HTTP traces endpoint `URL` (e.g. http://127.0.0.1:4318/v1/traces)")
	fs.StringVar(&o.otlpLogs, "otlp-logs", "", "send the steps that are not calls (prompts, session start and end, notifications, compaction, gate decisions, errors) as OpenTelemetry log records, in the session's trace, to the OTLP/HTTP logs endpoint `URL` (e.g. http://127.0.0.1:4318/v1/logs)")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	// Flags may follow the record: logbook-review RECORD --only failed.
	if err := cli.ParseInterleaved(fs, fs.Args()); err != nil {
		cli.UsageError(fs, err, stderr)
		return 2
	}
	if (o.otlp != "" || o.otlpLogs != "") && SendOTLP == nil {
		if getenv(helperEnv) != "" {
			fmt.Fprintf(stderr, "logbook-review: run as %s, but this is logbook-review, without the exporter: install %s from ./cmd/%s\n", Helper, Helper, Helper)
			return 2
		}
		return runHelper(args, stdout, stderr)
	}
	if err := review.CheckFilter(o.only); err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	if o.colour != "auto" && o.colour != "always" && o.colour != "never" {
		fmt.Fprintf(stderr, "logbook-review: --color %q: want auto, always or never\n", o.colour)
		return 2
	}
	dir, err := cli.Dir(o.dir, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	var opt record.Options
	if opt.Pinned, err = o.vf.Pinned(); err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	if o.list {
		if fs.NArg() != 0 {
			fmt.Fprintln(stderr, "logbook-review: --list takes no RECORD (it lists --dir)")
			return 2
		}
		return list(dir, opt, o, stdout, stderr)
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "logbook-review: give one RECORD or SESSION-ID (run 'logbook-review --help' for usage)")
		return 2
	}
	path, inProgress, err := locate(fs.Arg(0), dir)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	data, err := readlimit.Large(path, maxRecord)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	// The file is live throughout (the rows point into it), with the
	// rows, about 0.29 times its size at the verifier's end on a long
	// record (TestReviewCollectHeld). The heap's peak is the limit's
	// goal, not the live heap: a soft limit of 1.15 times the file (plus
	// the runtime's share) keeps the peak near 1.7 times the file on a
	// 100,000-step record, the collector running 6 times (1.1: 7 times;
	// 1.05: 12, and CPU past 1.45x verify's; 1.35, the limit before the
	// rows were made compact: 1.9x the file, 3 times; docs/performance.md).
	membudget.ForInput(int64(len(data))*23/20, 1)
	// A hand-over bundle is reviewed as its record (docs/bundle.md); with
	// no --pubkey, the bundle's own key is not trusted for being there.
	var fromBundle bool
	var bun *bundle.Bundle
	if !inProgress && bundle.Looks(data) {
		b, err := bundle.Read(data)
		if err != nil {
			fmt.Fprintf(stderr, "logbook-review: %s: %v\n", path, err)
			return 1
		}
		data, fromBundle, bun = b.Record, true, b
	}
	if o.export != "" {
		if fromBundle {
			fmt.Fprintln(stderr, "logbook-review: --export takes a record, and this is already a bundle")
			return 2
		}
		if inProgress {
			fmt.Fprintln(stderr, "logbook-review: --export needs a sealed record; seal the session first")
			return 2
		}
		return export(path, data, o, stdout, stderr)
	}
	var r *review.Review
	if inProgress {
		r, err = review.FromInProgress(data)
	} else {
		// The verdict at the head of a review is the one logbook-verify
		// gives with the same flags; a bundle's checkpoints and proof of
		// logging are judged under the reviewer's keys and log policy.
		in, perr := o.vf.Load()
		if perr == nil {
			in, perr = o.vf.Record(in, path, bun)
		}
		in.Record = data
		if perr != nil {
			fmt.Fprintln(stderr, "logbook-review:", perr)
			return 2
		}
		var col review.Collector
		col.Expect(len(data))
		in.EachStep, in.Top = col.Step, col.Top
		out := verdict.Run(in)
		r, err = review.FromCollected(&col, data, out.Result, len(opt.Pinned) > 0)
		if err == nil {
			r.SetAssurance(out.Level)
			r.Notes = append(r.Notes, gateNotes(out)...)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "logbook-review: %s: %v\n", path, err)
		return 2
	}
	if !inProgress && !fromBundle {
		r.Notes = append(r.Notes, afterSeal(path, r.Summary.Steps)...)
	}
	if fromBundle {
		r.Notes = append(r.Notes, "the record of the bundle "+filepath.Base(path)+"; its checkpoints and proof of logging are judged under --checkpoint-key and --log-policy, its attestations by logbook-verify --bundle")
	}
	status := 0
	if !r.Verdict.OK {
		status = 1
	}
	if o.jsonl != "" || o.otlp != "" || o.otlpLogs != "" {
		if err := streams(path, data, inProgress, r, o, stdout); err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		return status
	}
	r.Turns = review.Filter(r.Turns, o.only)
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		return status
	}
	term := isTerminal(stdout)
	colour := o.colour == "always" || (o.colour == "auto" && term && getenv("NO_COLOR") == "")
	width := o.width
	if width < 0 {
		width = 0
		if term {
			width, _ = termSize(stdout)
		}
	}
	topt := review.TextOptions{Colour: colour, Width: width, Only: o.only}
	if !term || o.noPager {
		// No pager: the text goes out as it is made, not held whole (on
		// a 100,000-step record that is 5 MB and its copies as the
		// buffer grows: a tenth of the peak, issue 21).
		w := bufio.NewWriterSize(stdout, 64<<10)
		err := review.WriteText(w, r, topt)
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			fmt.Fprintln(stderr, "logbook-review:", err)
			return 2
		}
		return status
	}
	var buf bytes.Buffer
	if err := review.WriteText(&buf, r, topt); err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	if err := page(buf.Bytes(), stdout, stderr, term && !o.noPager, getenv); err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	return status
}

// locate finds what arg names: a file, else a session id in dir (its
// sealed record when there is one, else its in-progress file).
func locate(arg, dir string) (path string, inProgress bool, err error) {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		return arg, strings.HasSuffix(arg, ".steps.jsonl") || looksInProgress(arg), nil
	} else if err == nil {
		// A device, FIFO or directory: say so, not "no such file". A
		// record is reviewed from a regular file (looking for the
		// in-progress header would use up a pipe).
		return "", false, readlimit.NotRegular(arg, st.Mode())
	}
	if strings.ContainsAny(arg, `/\`) || arg == "" || arg == "." || arg == ".." {
		return "", false, fmt.Errorf("%s: no such file", arg)
	}
	rec := filepath.Join(dir, arg+".record.json")
	steps := filepath.Join(dir, arg+".steps.jsonl")
	_, errR := os.Stat(rec)
	_, errS := os.Stat(steps)
	switch {
	case errR == nil:
		return rec, false, nil
	case errS == nil:
		return steps, true, nil
	}
	return "", false, fmt.Errorf("%s: no such file, and no session %s in %s", arg, arg, dir)
}

// looksInProgress: an in-progress file's first line is its header.
func looksInProgress(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"format":"logbook/in-progress@`))
}

func list(dir string, opt record.Options, o options, stdout, stderr io.Writer) int {
	ls, err := review.List(dir, opt)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	if o.asJSON {
		if ls == nil {
			ls = []review.Listed{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(ls)
		return 0
	}
	if len(ls) == 0 {
		fmt.Fprintf(stdout, "no sessions in %s\n", dir)
		return 0
	}
	if err := review.WriteList(stdout, ls); err != nil {
		fmt.Fprintln(stderr, "logbook-review:", err)
		return 2
	}
	return 0
}

const synopsis = `logbook-review [--json] [--only exec|edit|failed|gaps] [--pubkey FILE]... [--color auto|always|never] [--no-pager]
               [--tsa-roots PEM] [--attestation FILE --attestor-key PUB]... [--checkpoint FILE]... [--checkpoint-key PUB]...
               [--log-policy FILE [--log-proof FILE]] [--policy-key PUB... [--require-policy DIGEST]] RECORD|SESSION-ID|BUNDLE
logbook-review --list [--dir DIR] [--json]
logbook-review --export BUNDLE [--pubkey FILE] [--attestation FILE]... [--attestor-key FILE]... [--tsa-roots PEM]
               [--checkpoint FILE]... [--checkpoint-key PUB]... [--log-proof FILE] [--log-policy FILE] RECORD
logbook-review --jsonl FILE|- RECORD|SESSION-ID
logbook-review [--otlp URL] [--otlp-logs URL] RECORD|SESSION-ID`

// afterSeal notes steps recorded after the seal: a session that went on
// (resumed) has more steps in ID.steps.jsonl than its record.
func afterSeal(recordPath string, sealed int) []string {
	steps := strings.TrimSuffix(recordPath, ".record.json") + ".steps.jsonl"
	if steps == recordPath {
		return nil
	}
	data, err := readlimit.Large(steps, maxRecord)
	if err != nil {
		return nil
	}
	n := bytes.Count(data, []byte("\n")) - 1 // the header line
	if n > sealed {
		return []string{fmt.Sprintf("%s holds %d step(s) recorded after this seal; seal again to cover them, or review the session in progress with %s", filepath.Base(steps), n-sealed, filepath.Base(steps))}
	}
	return nil
}

// maxRecord bounds a record and its steps file (docs/limits.md); a
// variable so that tests can lower it.
var maxRecord int64 = readlimit.Record

// gateNotes say what verify says of an accepted record's gate steps:
// what --policy-key found, or that nothing checked them, and first of
// all a denied call that ran anyway.
func gateNotes(out verdict.Outcome) []string {
	var n []string
	if out.InputMismatch != "" {
		n = append(n, verdict.InputMismatchWarning(out.InputMismatch))
	}
	if out.DeniedRan != "" {
		n = append(n, verdict.DeniedRanWarning(out.DeniedRan))
	}
	if out.UncheckedGates > 0 {
		n = append(n, verdict.UncheckedGatesWarning(out.UncheckedGates))
	}
	if g := out.Gate; g != nil {
		n = append(n, fmt.Sprintf("organization policy checked under --policy-key: %d call(s) gated, %d denied, policy %s", g.Gates, g.Denied, strings.Join(g.Policies, ",")))
	}
	return n
}
