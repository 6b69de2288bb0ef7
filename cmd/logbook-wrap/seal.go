package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/edsign"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/seal/core"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/wraprun"
	"github.com/logbook-project/logbook/wrap"
)

// recordTmp is the record's temporary file in the private directory,
// until Commit renames it to --out.
const recordTmp = "record.json.tmp"

// oneShot is one --out run: its private in-progress directory beside the
// record (tmp), the journal in it, held open and locked from the start
// step to the seal, and the record's temporary file.
type oneShot struct {
	tmp, session, out string
	red               *redact.Redactor
	j                 *journalfile.Journal
}

// prepared is what is made ready while the command runs.
type prepared struct {
	priv ed25519.PrivateKey
	file *durable.Pending
	err  error
}

// prepare, run on its own goroutine while the command runs, derives the
// key's public half (a scalar multiplication) and creates the record's
// temporary file. (An fsync of the empty file here, to have its creation
// durable before the seal, made a short command's --out slower: its
// flush was still in the disk's queue when the seal's came.)
func (o *oneShot) prepare(seed []byte, ops durable.Ops) (pr prepared) {
	if pr.priv, pr.err = edsign.NewKeyFromSeed(seed); pr.err == nil {
		pr.file, pr.err = durable.Prepare(ops, filepath.Join(o.tmp, recordTmp), o.out, 0o644)
	}
	return pr
}

// run runs the command with its steps going into the held journal; the
// options are wrap.Run's for the same Command and Options.
func (o *oneShot) run(c wrap.Command, opt wrap.Options) wraprun.Result {
	hdr := wraprun.Header(o.session, c.Dir, o.red, opt.Recorder, opt.Agent, opt.Log)
	w := wraprun.Options{
		Argv: c.Args, Cwd: c.Dir, Env: c.Env, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Agent: opt.Agent, Goal: opt.Goal, Redactor: o.red,
		Materials: c.Materials, Products: c.Products, MaxFiles: c.MaxFiles,
		ID:      wraprun.NewID(),
		Now:     opt.Now,
		Signals: opt.Signals,
		Log:     opt.Log,
		Record: func(s chain.Step) error {
			_, err := o.j.Append(hdr, []chain.Step{s})
			return err
		},
	}
	if opt.Signals != nil {
		w.Keyboard = wraprun.FromTerminal
	}
	return wraprun.Run(w)
}

// seal seals the held journal and commits the record to out, as
// logbook-seal --dir TMP --session ID --out OUT --goal GOAL would (the
// same bytes: TestOneShotMatchesLogbookSeal), in this process. It used
// to start logbook-seal, whose start-up (its schema validator compiles its
// meta schemas at init, then the record schema) was most of logbook-wrap
// --out's time. The journal is the one this process has just written in
// its private directory; the record's signature is checked as it is made
// (signed.AssembleWith), and its bytes must be strict JSON here;
// logbook-verify checks the rest. Like logbook-seal without --force, it
// never replaces another record.
func (o *oneShot) seal(goal string, pr prepared, getenv func(string) string) error {
	if pr.err != nil {
		return pr.err
	}
	now, err := cli.Now(getenv)
	if err != nil {
		pr.file.Abort()
		return err
	}
	cwd, _ := os.Getwd()
	res, err := core.Seal(o.j, pr.priv, core.Options{Goal: goal, Now: now, Cwd: cwd, Redactor: o.red, Check: strictJSON})
	if err != nil {
		pr.file.Abort()
		return err
	}
	if err := pr.file.Commit(res.Record); errors.Is(err, durable.ErrExists) {
		return fmt.Errorf("%s exists: refusing to replace a record", o.out)
	} else if err != nil {
		return err
	}
	return nil
}

// cleanUp removes the private directory: the journal, its lock, the copy
// of the redaction patterns, then the directory itself (by name, so that
// nothing is read; anything unexpected there is removed as well).
func (o *oneShot) cleanUp() {
	if o.j != nil {
		o.j.Close()
	}
	for _, name := range []string{o.session + ".steps.jsonl", o.session + ".lock", redact.ConfigFile} {
		os.Remove(filepath.Join(o.tmp, name))
	}
	if os.Remove(o.tmp) != nil {
		os.RemoveAll(o.tmp)
	}
}

// runOneShot records the command in a private in-progress file beside
// the record, seals it in process, and removes the file. If the wrapper
// is killed, the file stays, with the start step, for logbook-seal; no
// record is ever at --out but a whole one.
func runOneShot(c config, cmd wrap.Command, opt wrap.Options, cfgDir string, red *redact.Redactor, getenv func(string) string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "logbook-wrap: "+format+"\n", a...)
		return wrap.ExitFailure
	}
	// Check before the command runs that a seal can follow.
	text, from, err := cli.SigningKeyPEM(c.key, getenv)
	if err != nil {
		return fail("not run: %v", err)
	}
	seed, err := keySeed(text)
	if err != nil {
		return fail("not run: signing key %s: %v", from, err)
	}
	if c.session == "" {
		c.session = "wrap-" + strings.ToLower(rand.Text())
	}
	if err := journalfile.ValidSessionID(c.session); err != nil {
		return fail("%v", err)
	}
	out, err := filepath.Abs(c.out)
	if err != nil {
		return fail("%v", err)
	}
	o := &oneShot{session: c.session, out: out, red: red}
	if o.tmp, err = os.MkdirTemp(filepath.Dir(out), ".logbook-wrap-"); err != nil {
		return fail("not run: %v", err)
	}
	// The project's redaction patterns go with the steps, for a later
	// logbook-seal of what a killed wrapper leaves.
	if err := copyConfig(cfgDir, o.tmp); err != nil {
		o.cleanUp()
		return fail("not run: %v", err)
	}
	if o.j, err = journalfile.Open(o.tmp, o.session); err != nil {
		o.cleanUp()
		return fail("not run: %v", err)
	}
	ready := make(chan prepared, 1)
	go func() { ready <- o.prepare(seed, durable.OSOps) }()
	res := o.run(cmd, opt)
	pr := <-ready
	if res.Steps == 0 { // not run: nothing to seal
		if pr.file != nil {
			pr.file.Abort()
		}
		o.cleanUp()
		return res.ExitCode
	}
	if err := o.seal(c.goal, pr, getenv); err != nil {
		o.j.Close()
		return fail("the command exited %d but its record was not sealed (%v); its steps are in %s: logbook-seal --dir %s --session %s --out %s",
			res.ExitCode, err, o.tmp, o.tmp, o.session, out)
	}
	o.cleanUp()
	if res.Err != nil {
		return wrap.ExitFailure
	}
	return res.ExitCode
}

func strictJSON(rec []byte) error {
	_, err := strictjson.Parse(rec, strictjson.Options{})
	return err
}
