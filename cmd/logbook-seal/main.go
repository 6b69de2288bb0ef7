// Command logbook-seal closes a session: it signs the in-progress steps into
// a record (spec §6) and writes it atomically and durably. With --new-key it
// makes a key pair instead.
//
//	logbook-seal --new-key FILE
//	logbook-seal --from-server URL --session ID [--dir DIR]
//	logbook-seal [--dir DIR] --session ID [--key FILE] [--out RECORD] [--force] [--goal TEXT] [--ended-at TIME]
//	             [--cert-chain PEM] [--tsa URL | --tsa-cmd CMD]
//	logbook-seal --hook [--dir DIR] [--key FILE] [--out RECORD] [--harness NAME] [--event NAME] [PAYLOAD]
//	                                              (a harness's session-end hook)
//
// The signing key is --key FILE, else $LOGBOOK_SIGNING_KEY (the PEM text),
// else ~/.config/logbook/signing.key. An existing record is never replaced
// unless --force, which keeps it as RECORD.prev-N. Exit status: 0 sealed,
// 1 not sealed, 2 usage error. As a hook (--hook) it records the session-end payload on
// stdin (or in the last argument, as Codex's notify program passes it)
// first, then seals, and never exits 2 (that would block the harness).
// --harness and --event are record-step's: what the payload's shape
// cannot say.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/sealmark"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/logbook-project/logbook"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/membudget"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/unsealed"
	"github.com/logbook-project/logbook/journal"
)

func main() {
	// A record's parsed tree is most of the heap and it only grows:
	// collecting less often saves repeated marking of it. $GOGC, when
	// set, wins: a machine short of memory trades time for it
	// (BenchmarkSealVerify shows both).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

type config struct {
	newKey, keyFile, dir, session, out, goal, endedAt string
	certChain, tsaURL, tsaCmd, fromServer             string
	hook, force                                       bool
	hint                                              hookevent.Hint
	payloadArg                                        string
}

const synopsis = `logbook-seal [--dir DIR] --session ID [--key FILE] [--out RECORD] [--force] [--goal TEXT] [--ended-at TIME]
             [--cert-chain PEM] [--tsa URL | --tsa-cmd CMD]
logbook-seal --hook [--dir DIR] [--key FILE] [--out RECORD] [--harness NAME] [--event NAME] [PAYLOAD]
logbook-seal --from-server URL --session ID [--dir DIR]   (a server's seal: its record fetched, the commits' notes written here)
logbook-seal --new-key FILE`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	var c config
	fs := flag.NewFlagSet("logbook-seal", flag.ContinueOnError)
	fs.StringVar(&c.newKey, "new-key", "", "write a new PKCS#8 PEM private key to `FILE` (mode 0600) and its SPKI PEM public key to FILE.pub, then exit")
	fs.StringVar(&c.keyFile, "key", "", "PKCS#8 PEM Ed25519 private key `FILE` (default $LOGBOOK_SIGNING_KEY text, else ~/.config/logbook/signing.key)")
	fs.StringVar(&c.dir, "dir", "", "session directory (default $LOGBOOK_DIR, else $CLAUDE_PROJECT_DIR/.logbook, else ./.logbook)")
	fs.StringVar(&c.session, "session", "", "session `ID` to seal")
	fs.StringVar(&c.out, "out", "", "record `FILE` to write (default DIR/ID.record.json)")
	fs.StringVar(&c.goal, "goal", "", "the session's goal, as the caller states it (never taken from a prompt)")
	fs.StringVar(&c.endedAt, "ended-at", "", "end `TIME` (RFC 3339 UTC; default: the last step's time)")
	fs.BoolVar(&c.hook, "hook", false, "read a session-end hook payload on stdin, record it, then seal its session")
	fs.StringVar(&c.hint.Harness, "harness", "", "with --hook: the harness whose configuration runs this hook")
	fs.StringVar(&c.hint.Event, "event", "", "with --hook: the event this hook is configured for, for payloads that name none")
	fs.StringVar(&c.certChain, "cert-chain", "", "PEM certificate chain `FILE`, leaf first, whose leaf certifies the signing key: stored as signerIdentity (signed)")
	fs.StringVar(&c.tsaURL, "tsa", "", "RFC 3161 time-stamping authority `URL`: a token over the signature is stored in signature.rfc3161")
	fs.StringVar(&c.tsaCmd, "tsa-cmd", "", "`COMMAND` (run by sh) that reads a DER TimeStampReq on stdin and writes the DER TimeStampResp on stdout, instead of --tsa")
	fs.BoolVar(&c.force, "force", false, "replace an existing record; the previous one is kept beside it as RECORD.prev-N")
	fs.StringVar(&c.fromServer, "from-server", "", "the session was sealed by the logbook-server at `URL`: fetch its record, checkpoint and proof of logging into DIR, and write the git notes of the commits it names in the repository here ($LOGBOOK_SERVER_READ_TOKEN, else $LOGBOOK_SERVER_TOKEN; docs/commits.md)")
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		if code == 2 && hookArgs(args) {
			return 0 // inside a hook the harness contract wins: never block it
		}
		return code
	}
	if c.hook && fs.NArg() > 0 {
		c.payloadArg = fs.Arg(fs.NArg() - 1) // Codex's notify program
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-seal: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if c.newKey != "" {
		return newKey(c.newKey, stdout, stderr)
	}
	if c.fromServer != "" { // a server's seal: the notes are written here
		dir, err := cli.Dir(c.dir, getenv)
		f, ferr := gitbind.FromServer(c.fromServer, cli.ReadToken(getenv), c.session, dir, ".")
		if err = cmp.Or(err, ferr); err != nil {
			fmt.Fprintln(stderr, "logbook-seal:", err)
			return 1
		}
		fmt.Fprintln(stdout, f)
		return 0
	}
	code, err := sealSession(c, stdin, stdout, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-seal:", err)
		if c.hook {
			if dir, derr := cli.Dir(c.dir, getenv); derr == nil {
				at, _ := cli.Now(getenv)
				_ = cli.LogError(dir, at, "logbook-seal", err.Error())
			}
			return 0 // a seal failure must not block the harness; it is logged
		}
	}
	return code
}

func sealSession(c config, stdin io.Reader, stdout io.Writer, getenv func(string) string) (int, error) {
	now, err := cli.Now(getenv)
	if err != nil {
		return 2, err
	}
	dir, err := cli.Dir(c.dir, getenv)
	if err != nil {
		return 2, err
	}
	if c.hook {
		payload := []byte(c.payloadArg)
		if c.payloadArg == "" {
			if payload, err = io.ReadAll(stdin); err != nil {
				return 1, fmt.Errorf("read stdin: %w", err)
			}
		}
		ev, err := journal.Record(dir, payload, journal.EventOptions{Harness: c.hint.Harness, Event: c.hint.Event,
			Now: func() string { return now }, Recorder: "logbook-seal"})
		if err != nil {
			return 1, fmt.Errorf("session end not recorded: %w", err)
		}
		c.session = ev.Session
	}
	// The goal is clear text: it gets the project's redaction patterns
	// too (logbook.Seal reads them from dir), and a config that cannot be
	// used stops the seal before anything else is done.
	if _, err := redact.LoadConfig(dir); err != nil {
		return 1, err
	}
	if c.session == "" {
		return 2, fmt.Errorf("--session ID is required (or --hook with a payload on stdin)")
	}
	if c.endedAt != "" && !instant.Valid(c.endedAt) {
		return 2, fmt.Errorf("--ended-at %q is not an RFC 3339 UTC instant", c.endedAt)
	}
	priv, err := loadKey(c.keyFile, getenv)
	if err != nil && c.hook {
		// The session ends unsealed: say so where it will be seen, in
		// the session itself and in a notice logbook-verify reports.
		n, lerr := unsealed.Leave(dir, c.session, now, err.Error())
		if lerr != nil {
			return 1, fmt.Errorf("session %s NOT SEALED (%v), and the notice could not be written: %v", c.session, err, lerr)
		}
		return 1, fmt.Errorf("session %s NOT SEALED: %v; notice in %s; seal it with: %s", c.session, err, unsealed.Path(dir, c.session), n.Fix)
	}
	if err != nil {
		return 2, err
	}
	certs, stamp, err := trust(c, priv)
	if err != nil {
		return 2, err
	}
	if err := journalfile.ValidSessionID(c.session); err != nil {
		return 2, err
	}
	st, err := os.Stat(journalfile.Path(dir, c.session))
	if err != nil {
		return 1, fmt.Errorf("no in-progress steps for session %s in %s: %w", c.session, dir, err)
	}
	// The sealer holds no more than a chunk of the journal; the check reads
	// the record (about the journal's size) and makes a canonical copy of
	// it: those two are live at the peak.
	membudget.ForInput(st.Size(), 2)
	opt := logbook.SealOptions{Goal: c.goal, Certificates: certs, Timestamp: stamp}
	if opt.Now, err = time.Parse(time.RFC3339Nano, now); err != nil {
		return 2, err
	}
	if c.endedAt != "" {
		if opt.EndedAt, err = time.Parse(time.RFC3339Nano, c.endedAt); err != nil {
			return 2, fmt.Errorf("--ended-at %q: %v", c.endedAt, err)
		}
	}
	// The repository's state at the seal, in the record (docs/commits.md).
	repo, err := gitbind.BeforeSeal(dir, c.session, func() string { return now })
	if err != nil {
		return 1, fmt.Errorf("git state at the seal not recorded: %w", err)
	}
	out := c.out
	if out == "" {
		out = filepath.Join(dir, c.session+".record.json")
	}
	// The record is written to a file beside out and checked there, never
	// held whole (issue 22), then put in place by writeRecord's rules.
	var kept string
	res, err := logbook.SealFile(dir, c.session, priv, out, opt, placeRecord(c.force || c.hook, &kept))
	if err != nil {
		return 1, err
	}
	unsealed.Clear(dir, c.session) // its note is in the record now
	// A record written elsewhere leaves a mark in the session directory,
	// so --list shows the session sealed, not in progress.
	if abs, _ := filepath.Abs(out); abs == mustAbs(filepath.Join(dir, c.session+".record.json")) {
		err = sealmark.Clear(dir, c.session)
	} else {
		err = sealmark.Write(dir, sealmark.Mark{Session: c.session, Record: out, Steps: res.Steps, At: now})
	}
	if err != nil {
		return 1, fmt.Errorf("sealed %s, but its mark in %s was not written: %w", out, dir, err)
	}
	// The commits the session named get their binding, a git note: a
	// note not written leaves the record sound and the commit unbound.
	noted, gerr := gitbind.AfterSeal(repo, out, "local")
	if gerr != nil {
		fmt.Fprintf(os.Stderr, "logbook-seal: sealed %s, but not every commit it names got its git note (%s): %v\n", out, gitbind.NoteRef, gerr)
	}
	if !c.hook {
		fmt.Fprintf(stdout, "sealed %s: %d steps", out, res.Steps)
		if len(noted) > 0 {
			fmt.Fprintf(stdout, ", %d commit(s) bound in %s", len(noted), gitbind.NoteRef)
		}
		if n := len(res.Unfinished); n > 0 {
			fmt.Fprintf(stdout, ", %d unfinished tool call(s) named in a note", n)
		}
		if res.TornCut {
			fmt.Fprint(stdout, ", a torn tail was cut and noted")
		}
		if certs != nil {
			fmt.Fprint(stdout, ", with signer identity")
		}
		if stamp != nil {
			fmt.Fprint(stdout, ", timestamped")
		}
		if kept != "" {
			fmt.Fprintf(stdout, "; the previous record is kept as %s", kept)
		}
		fmt.Fprintln(stdout)
	}
	return 0, nil
}

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}
