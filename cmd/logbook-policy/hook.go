package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/recorder"
)

const hookSynopsis = `logbook-policy hook --policy SIGNED.json --policy-key PUB [--require-policy DIGEST] [--policy-fail deny|allow] [--dir DIR] [--fail-closed] [--harness NAME] [--event NAME] < PAYLOAD.json
record-step --policy SIGNED.json --policy-key PUB ...   (the same: record-step runs this in its place)`

// gateFlags are the flags record-step hands on with --policy.
type gateFlags struct {
	policy     string
	keys       cli.List
	failOpen   string
	dir        string
	failClosed bool
	hint       hookevent.Hint
	server     string
	require    string
	serverKeys cli.List
}

func (g *gateFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&g.policy, "policy", "", "the signed organization policy `FILE` (logbook-policy sign)")
	fs.Var(&g.keys, "policy-key", "trusted policy signer: SPKI PEM public key `FILE` (repeatable)")
	fs.StringVar(&g.failOpen, "policy-fail", "deny", "what a gated call is decided when the policy cannot be read, verified or compiled: `deny` (fail closed) or allow (fail open); either way the gate step records why")
	fs.StringVar(&g.dir, "dir", "", "session directory (default $LOGBOOK_DIR, else $CLAUDE_PROJECT_DIR/.logbook, else ./.logbook)")
	fs.BoolVar(&g.failClosed, "fail-closed", false, "exit 2 when the event cannot be recorded, blocking the tool call")
	fs.StringVar(&g.hint.Harness, "harness", "", "the harness whose configuration runs this hook")
	fs.StringVar(&g.hint.Event, "event", "", "the event this hook is configured for, for payloads that name none")
	fs.StringVar(&g.server, "server", "", "not with --policy: a server gates with its own --policy")
	fs.StringVar(&g.require, "require-policy", "", "accept only the policy with this `DIGEST` (logbook-policy verify prints it): another one, even signed by a --policy-key, is not in force and gated calls are decided --policy-fail")
	// record-step hands on every flag it has: one this hook did not
	// know would make the hook line "broken" and the call ungated.
	fs.Var(&g.serverKeys, "server-key", "not with --policy (record-step's --server-key, ignored here)")
	fs.Int("server-wait", 0, "not with --policy (record-step's --server-wait, ignored here: a held call needs a server)")
}

// load reads and verifies the policy; what cannot be loaded becomes a
// Gate that decides --policy-fail and says why.
func (g *gateFlags) load() *gate.Gate {
	fail := orgpolicy.Deny
	if g.failOpen == "allow" {
		fail = orgpolicy.Allow
	}
	if len(g.keys) == 0 {
		return gate.Failed(orgpolicy.ErrUntrusted, "no --policy-key: the policy's signer cannot be checked", fail)
	}
	keys, err := trusted(g.keys)
	if err != nil {
		return gate.Failed(orgpolicy.ErrUnreadable, err.Error(), fail)
	}
	file, err := readPolicy(g.policy)
	if err != nil {
		var e *orgpolicy.Error
		if errors.As(err, &e) {
			return gate.Failed(e.Code, e.Detail, fail)
		}
		return gate.Failed(orgpolicy.ErrUnreadable, err.Error(), fail)
	}
	if g.require != "" && !format.Hex64(g.require) {
		return gate.Failed(orgpolicy.ErrUnreadable, fmt.Sprintf("--require-policy %q: want a policy digest, 64 lowercase hex", g.require), fail)
	}
	gt := gate.Load(file, keys, fail, gate.CacheDir(os.Getenv))
	if g.require != "" && gt.LoadErr == nil && gt.Signed.Digest != g.require {
		// A policy the key signed, but not the one pinned (an older one
		// put back, say): not in force.
		return gate.Failed(orgpolicy.ErrUntrusted, fmt.Sprintf("the policy's digest is %s; --require-policy pins %s", gt.Signed.Digest, g.require), fail)
	}
	return gt
}

// hook records one event with the gate. Its exit status and output follow
// the harness's hook contract: a recording failure never blocks a call
// the policy allows (unless --fail-closed), and a call the policy denies
// is denied even when it could not be recorded.
func hook(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	return hookIn(hookCtx{}, args, stdin, stdout, stderr, getenv)
}

// hookCtx is what a decider (serve.go) gives hookIn in place of this
// process's own: the caller's working directory and the gate it loaded
// once. The zero value is the hook's own process.
type hookCtx struct {
	cwd  string     // "": os.Getwd
	gate *gate.Gate // nil: load the --policy file now
}

func hookIn(hc hookCtx, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("logbook-policy hook", flag.ContinueOnError)
	var g gateFlags
	g.define(fs)
	if code, done := cli.Parse(fs, args, hookSynopsis, stdout, stderr); done {
		if code == 2 {
			return 0 // a broken hook line must not break the agent; the error is on stderr
		}
		return code
	}
	if g.failOpen != "deny" && g.failOpen != "allow" {
		fmt.Fprintln(stderr, "logbook-policy: --policy-fail must be deny or allow; using deny")
		g.failOpen = "deny"
	}
	at, clockErr := cli.Now(getenv)
	if clockErr != nil {
		at = instant.Format(time.Now())
	}
	dir, dirErr := cli.Dir(g.dir, getenv)
	if hc.cwd != "" {
		// A decider's working directory is not the caller's.
		dir, dirErr = cli.DirIn(hc.cwd, g.dir, getenv), nil
	}
	report := func(msg string) {
		fmt.Fprintln(stderr, "logbook-policy:", msg)
		if dir != "" {
			if err := cli.LogError(dir, at, "logbook-policy", msg); err != nil {
				fmt.Fprintln(stderr, "logbook-policy: cannot write the error log:", err)
			}
		}
	}
	var payload []byte
	var err error
	if fs.NArg() > 0 {
		payload = []byte(fs.Arg(fs.NArg() - 1))
	} else if payload, err = recorder.ReadPayload(stdin); err != nil {
		report(fmt.Sprintf("not recorded: read stdin: %v", err))
		// Unread (over MaxPayload, say), the call cannot be decided:
		// blocked unless the hook fails open, as below.
		if g.failClosed || g.failOpen == "deny" {
			fmt.Fprintln(stderr, "logbook-policy: the call could not be read, so the policy could not decide it: blocked")
			return 2
		}
		return 0
	}
	payload = cli.StripBOM(payload)
	gt := hc.gate
	if gt == nil {
		gt = g.load()
	}
	if gt.LoadErr != nil {
		report(fmt.Sprintf("policy %s not in force (%v); gated calls are decided %s", g.policy, gt.LoadErr, gt.OnLoadError))
	}
	if g.server != "" {
		report("--server is ignored with --policy: the event is recorded and gated here")
	}
	if dirErr != nil {
		report(fmt.Sprintf("not recorded: %v", dirErr))
		// Nor decided: blocked unless the hook fails open.
		if g.failClosed || g.failOpen == "deny" {
			fmt.Fprintln(stderr, "logbook-policy: the session directory could not be found, so the policy did not decide the call: blocked")
			return 2
		}
		return 0
	}
	cwd := hc.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	now := func() string {
		if clockErr != nil {
			return instant.Format(time.Now())
		}
		t, _ := cli.Now(getenv)
		return t
	}
	o := recorder.Options{Hint: g.hint, Self: &recorder.Self{Name: "logbook-policy", Warn: report}, Now: now}
	var v *gate.Verdict
	rec := gt.Wire(payload, &o, &v)
	ev, err := recorder.Record(dir, rec, "", cwd, o)
	var w *recorder.Warning
	if errors.As(err, &w) {
		report(fmt.Sprintf("%s: %v", ev.Name, w))
		err = nil
	}
	if err != nil {
		report(fmt.Sprintf("not recorded (%s): %v", nameOf(ev), err))
	}
	if v == nil {
		// Not gated. When the payload could not be read far enough to
		// know it is not a call (or it is one, without a session), the
		// call cannot be decided: block it unless the hook fails open.
		if err != nil && (ev.Name == "" || kinds.Gated(ev.Name)) && (g.failClosed || g.failOpen == "deny") {
			fmt.Fprintln(stderr, "logbook-policy: the call could not be read, so the policy could not decide it: blocked")
			return 2
		}
		return 0
	}
	harness := ev.Harness
	if g.hint.Harness != "" {
		harness = g.hint.Harness
	}
	ans := orgpolicy.AnswerFor(harness, ev.Name, v.Result, v.Enforced)
	if err != nil && v.Decision == orgpolicy.Allow && g.failClosed {
		return 2
	}
	_, _ = stdout.Write(ans.Stdout)
	fmt.Fprint(stderr, ans.Stderr)
	return ans.Exit
}

func nameOf(ev hookevent.Event) string {
	if ev.Name == "" {
		return "unknown event"
	}
	return ev.Name
}
