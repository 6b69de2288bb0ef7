// Command record-step records one harness hook event: it reads the event's
// JSON payload on stdin (or, for Codex's notify program, as the last
// command-line argument) and appends one digest-only, hash-chained step to
// the session's in-progress file. Every supported harness's dialect is read
// (package journal); --harness NAME and --event NAME say what the
// payload's shape cannot. It writes to stdout (which can reach the model)
// only when a session's start could not be recorded: a JSON
// "systemMessage", which the harnesses that can show one show the user,
// saying that recording is off and why. Exit status follows the hook contract the harnesses
// share: 0, even when recording fails (the failure goes to stderr and
// DIR/errors.log); with --fail-closed (meant for the pre-tool hook only), a
// failure exits 2 so the tool call is blocked rather than run unrecorded,
// unless the payload says it is another event. An unknown flag is reported
// on stderr and exits 0 inside a hook, 2 when typed at a terminal.
//
//	record-step [--dir DIR] [--fail-closed] [--harness NAME] [--event NAME] [--server URL] [PAYLOAD] < payload
//	record-step install --harness NAME [--project DIR | --user] [--dry-run] ...
//	record-step uninstall --harness NAME [--project DIR | --user] [--dry-run] ...
//	record-step commit [--server URL]   (the post-commit hook: names HEAD in the sessions recording)
//	record-step trailer [--server URL] FILE   (the commit-msg hook of install --trailer)
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/journal"
)

const unknownEvent = "unknown event"

func main() {
	if len(os.Args) > 1 && (os.Args[1] == "install" || os.Args[1] == "uninstall") {
		os.Exit(installer(os.Args[1:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "commit" {
		os.Exit(gitstep.CommitHook(os.Args[2:], os.Stdout, os.Stderr, os.Getenv)) // the post-commit hook (docs/commits.md)
	}
	if len(os.Args) > 1 && os.Args[1] == "trailer" {
		os.Exit(gitstep.TrailerHook(os.Args[2:], os.Stdout, os.Stderr, os.Getenv)) // the commit-msg hook (install --trailer)
	}
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard(os.Stdin, os.Stderr, os.Getenv))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

// installer runs logbook-install, built beside record-step, in this
// process's place. The install code stays out of record-step: linked in, it
// made every hook's start-up about 1 ms slower (docs/performance.md).
func installer(args []string) int { return execBeside("logbook-install", args, os.Stderr) }

// execBeside runs the program name, built beside record-step, in this
// process's place; it returns only when that fails.
func execBeside(name string, args []string, stderr io.Writer) int {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintln(stderr, "record-step:", err)
		return 1
	}
	prog := filepath.Join(filepath.Dir(exe), name)
	err = replaceProcess(prog, args, nil)
	fmt.Fprintf(stderr, "record-step %s: cannot run %s (%v): build it beside record-step (go build ./cmd/...)\n", args[0], prog, err)
	return 1
}

const synopsis = `record-step [--dir DIR | --server URL [--server-key HEX]] [--fail-closed] [--harness NAME] [--event NAME] < PAYLOAD.json
record-step --policy SIGNED.json --policy-key PUB [--require-policy DIGEST] [--policy-fail deny|allow] [flags] < PAYLOAD.json   (gated: docs/policy.md)
record-step [flags] PAYLOAD-JSON-TEXT   (Codex's notify program passes the JSON itself)
record-step install|uninstall --harness NAME [--project DIR | --user] [--server URL] [--dry-run]   (install --help: all its flags)
record-step commit [--server URL]   (the post-commit hook install adds: names HEAD in the sessions recording; docs/commits.md)
record-step trailer [--server URL] MESSAGE-FILE   (the commit-msg hook install --trailer adds: a Logbook-Record: SESSION trailer)`

// run records one event. stdout is only for --help, --version and the
// session-start notice (startNotice): a hook's stdout can reach the model.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("record-step", flag.ContinueOnError)
	dirFlag := fs.String("dir", "", "session directory (default $LOGBOOK_DIR, else $CLAUDE_PROJECT_DIR/.logbook, else ./.logbook)")
	failClosed := fs.Bool("fail-closed", false, "exit 2 when the event cannot be recorded, blocking the tool call; with --server, also when a gated call's answer cannot be confirmed (put it on the PreToolUse and PermissionRequest hooks only)")
	var opt journal.EventOptions
	fs.StringVar(&opt.Harness, "harness", "", "the harness whose configuration runs this hook: "+strings.Join(journal.Harnesses(), ", "))
	fs.StringVar(&opt.Event, "event", "", "the event this hook is configured for, for payloads that name none (Copilot CLI)")
	server := fs.String("server", "", "send the event to a logbook server at `URL` (http://IP:PORT, or unix:/PATH) instead of recording it here")
	var serverKeys cli.List
	fs.Var(&serverKeys, "server-key", "with --server: the server's Ed25519 public key, 64 hex digits (GET /v1/key's publicKey; repeatable, to pin the next key across a rotation): an answer not signed by it is counted as not sent, as a process squatting the server's port would answer (record-step install --server pins it)")
	serverWait := fs.Int("server-wait", 0, "with --server: `SECONDS` this hook waits for the answer to a call the server holds for an approver (a PreToolUse hook; its harness timeout must be longer); 0: a held call is denied at once (docs/approvals.md)")
	policy := fs.String("policy", "", "gate each PreToolUse (and PermissionRequest) with the signed organization policy `FILE`: logbook-policy, built beside record-step, records and answers: the user's decider for the policy (logbook-policy serve, started on the first call), else logbook-policy hook in this process's place (docs/policy.md §7; LOGBOOK_POLICYD=off: always the latter)")
	var policyKeys cli.List
	fs.Var(&policyKeys, "policy-key", "with --policy: trusted policy signer, SPKI PEM public key `FILE` (repeatable)")
	policyFail := fs.String("policy-fail", "deny", "with --policy: the decision when the policy cannot be loaded, `deny` or allow")
	requirePolicy := fs.String("require-policy", "", "with --policy: accept only the policy with this `DIGEST` (another is not in force: --policy-fail decides)")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		// A broken hook command line must not break the agent: exit 0,
		// the error already on stderr. Typed at a terminal, it is 2.
		if code == 2 && !interactive(stdin) {
			return 0
		}
		return code
	}
	if fs.NArg() > 0 {
		// record-step instal: a mistyped command, never a payload (a
		// hook does not type). Said, and nothing is written.
		if sub := cli.SuggestWord(fs.Arg(0), "install", "uninstall", "guard", "commit", "trailer"); sub != "" && fs.Arg(0) != sub {
			fmt.Fprintf(stderr, "record-step: %q is not a command: did you mean record-step %s? (run 'record-step --help' for usage)\n", fs.Arg(0), sub)
			return 2
		}
	}
	if interactive(stdin) {
		// Typed at a terminal: no harness is sending an event. Waiting
		// for one on the keyboard, then leaving .logbook/ wherever the
		// user stands, helps nobody.
		fmt.Fprintln(stderr, "record-step: records one hook event a harness sends on stdin; it is run by the hooks record-step install writes, not by hand (record-step install --harness NAME; record-step --help)")
		return 2
	}
	at, clockErr := cli.Now(getenv)
	if clockErr != nil {
		at = instant.Format(time.Now())
	}
	dir, err := cli.Dir(*dirFlag, getenv)
	// The default ./.logbook is made for an event, not for a complaint: a
	// payload that is no event, sent by hand from anywhere, leaves no
	// directory behind. Named by --dir or the environment, it is made.
	chosen := *dirFlag != "" || getenv("LOGBOOK_DIR") != "" || getenv("CLAUDE_PROJECT_DIR") != ""
	report := func(msg string) {
		fmt.Fprintln(stderr, "record-step:", msg)
		if !chosen {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return
			}
		}
		if dir != "" {
			if lerr := cli.LogError(dir, at, "record-step", msg); lerr != nil {
				fmt.Fprintln(stderr, "record-step: cannot write the error log:", lerr)
			}
		}
	}
	if *policy != "" {
		// CEL's start-up (about 3 ms) stays out of this program: the
		// gate is logbook-policy's, reached through its decider or
		// exec'd (policy.go; docs/policy.md §7, performance.md).
		return gated(policyCall{args: args, policy: *policy, keys: policyKeys, failMode: *policyFail, require: *requirePolicy, inArgs: fs.NArg() > 0},
			stdin, stdout, stderr, getenv, report)
	}
	// At the start of a session, a failure is also said where the user
	// looks: the harness's own screen (kinds.StartMessage), not only
	// stderr and errors.log, which harnesses hide.
	startNotice := func(event, harness string, err error) {
		if opt.Harness != "" {
			harness = opt.Harness
		}
		harness, _, _ = strings.Cut(harness, " ") // "cursor 2.0.77"
		if !kinds.SessionStart(event) || !kinds.StartMessage(harness) {
			return
		}
		why := err.Error()
		if len(why) > 600 {
			why = why[:600] + "…"
		}
		stdout.Write(kinds.SystemMessage("logbook: recording is OFF for this session: " + why))
		if cli.Headless(getenv) {
			cli.TellTerminal("logbook: recording is OFF for this session: " + why)
		}
	}
	fail := func(event string, err error) int {
		if event == unknownEvent {
			// Not read yet (or not readable): naming no event reads
			// better than "(unknown event)", which sounds like the cause.
			report(fmt.Sprintf("not recorded: %v", err))
		} else {
			report(fmt.Sprintf("not recorded (%s): %v", event, err))
		}
		// An unreadable payload may be a cut-off PreToolUse: fail closed
		// unless the event is known to be another one. A PermissionRequest
		// is gated as a PreToolUse is (docs/policy.md).
		if *failClosed && (kinds.Gated(event) || event == unknownEvent) {
			// The harness shows this stderr on a block: say that the call
			// was stopped and why, not only what failed.
			fmt.Fprintln(stderr, "record-step: the tool call is blocked (--fail-closed): a call that cannot be recorded, or whose policy answer cannot be confirmed, does not run; fix the cause above (a server that is down: start it) and try again")
			return 2
		}
		return 0
	}
	if err != nil {
		return fail(unknownEvent, err)
	}
	var payload []byte
	if fs.NArg() > 0 {
		// Codex's notify program passes its JSON as the last argument and
		// gives the program no stdin.
		payload = []byte(fs.Arg(fs.NArg() - 1))
		if hint := notJSONArg(payload); hint != "" {
			return fail(unknownEvent, errors.New(hint))
		}
	} else if payload, err = journal.ReadPayload(stdin); err != nil {
		if _, refused := err.(*journal.Refusal); refused {
			return fail(unknownEvent, err) // PAYLOAD_TOO_LARGE: unknown, so --fail-closed blocks
		}
		return fail(unknownEvent, fmt.Errorf("read stdin: %w", err))
	}
	limitMemory(len(payload))
	if *server != "" {
		cwd, _ := os.Getwd()
		hint := hookevent.Hint{Harness: opt.Harness, Event: opt.Event}
		// The session's own count (unsent.go): the server names the
		// numbers it never receives, this event's too if it is lost.
		seq := nextSeq(dir, hookevent.SessionOf(cli.StripBOM(payload)))
		rel, err := forward(*server, serverKeys, cli.StripBOM(payload), hint, cwd, seq, *serverWait, getenv)
		if err != nil {
			// Read the event only now, on the way out: forwarding does
			// not need it, and the notice does.
			if ev, perr := hookevent.ParseWith(cli.StripBOM(payload), hint); perr == nil {
				startNotice(ev.Name, ev.Harness, err)
				return fail(ev.Name, err)
			}
			return fail(unknownEvent, err)
		}
		// The server's answer, as logbook-policy hook gives it when it
		// gates the call here: a denied call is blocked.
		_, _ = stdout.Write(rel.Stdout)
		_, _ = stderr.Write(rel.Stderr)
		return rel.Exit
	}
	// The first event of a session names this program, hashed once, as
	// the session's recorder (spec §4 session.recorder).
	opt.Recorder, opt.Warn = "record-step", report
	// The step's time is taken under the session's lock (at the start,
	// at is only for error lines), so at follows seq.
	opt.Now = func() string {
		if clockErr != nil {
			return instant.Format(time.Now())
		}
		t, _ := cli.Now(getenv)
		return t
	}
	ev, err := journal.Record(dir, payload, opt)
	if err != nil {
		name := ev.Name
		if name == "" {
			name = unknownEvent
		}
		startNotice(ev.Name, ev.Harness, err)
		return fail(name, err)
	}
	if clockErr != nil {
		report(fmt.Sprintf("recorded with the system clock: %v", clockErr))
	}
	if kinds.SessionStart(ev.Name) {
		gitstep.StartHook(dir, ev.Session, getenv, report)
	}
	return 0
}
