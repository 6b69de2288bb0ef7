package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/orgpolicy/decider"
	"github.com/logbook-project/logbook/internal/orgpolicy/decider/serve"
)

const serveSynopsis = `logbook-policy serve --policy SIGNED.json --policy-key PUB [--require-policy DIGEST] [--policy-fail deny|allow] [--socket-dir DIR] [--idle DURATION]
(record-step --policy starts it, detached, when a gated call finds none: docs/policy.md §7)`

// serveCmd is the decider: the policy loaded, verified and compiled once,
// then `logbook-policy hook` run in this process for each request on the
// socket, with the caller's arguments, environment, working directory and
// payload. It leaves after --idle without a request, or as soon as its
// binary, the policy or a trusted key file changes (no caller can reach
// it any more: their key is another one).
func serveCmd(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("logbook-policy serve", flag.ContinueOnError)
	var g gateFlags
	fs.StringVar(&g.policy, "policy", "", "the signed organization policy `FILE`")
	fs.Var(&g.keys, "policy-key", "trusted policy signer: SPKI PEM public key `FILE` (repeatable)")
	fs.StringVar(&g.failOpen, "policy-fail", "deny", "what a gated call is decided when the policy cannot be used: `deny` or allow")
	fs.StringVar(&g.require, "require-policy", "", "accept only the policy with this `DIGEST` (as record-step's hook gives it: part of the decider's key)")
	dir := fs.String("socket-dir", "", "the directory of the socket (default $LOGBOOK_POLICYD_DIR, else $XDG_RUNTIME_DIR/logbook-policy, else TMPDIR/logbook-policy-UID); made 0700")
	idle := fs.Duration("idle", 15*time.Minute, "leave after this long without a request")
	if code, done := cli.Parse(fs, args, serveSynopsis, stdout, stderr); done {
		return code
	}
	if g.policy == "" {
		fmt.Fprintln(stderr, "logbook-policy serve: give --policy FILE")
		return 2
	}
	// The decider runs in /: every file by its absolute name.
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	g.policy = abs(g.policy)
	for i := range g.keys {
		g.keys[i] = abs(g.keys[i])
	}
	if *dir == "" {
		*dir = decider.Dir(getenv)
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy serve:", err)
		return 1
	}
	id, err := decider.SelfIdentity()
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy serve:", err)
		return 1
	}
	keyNow := func() (string, error) {
		pol, kb, err := decider.Inputs(g.policy, g.keys)
		if err != nil {
			return "", err
		}
		return decider.KeyOf(id, pol, kb, decider.Mode(g.failOpen, g.require)), nil
	}
	key, err := keyNow()
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy serve:", err)
		return 1
	}
	gt := g.load()
	if k, err := keyNow(); err != nil || k != key {
		fmt.Fprintln(stderr, "logbook-policy serve: the policy or a key file changed while it was loaded")
		return 1
	}
	stale := func() bool {
		now, err := decider.StatIdentity(exe)
		if err != nil || now != id {
			return true
		}
		k, err := keyNow()
		return err != nil || k != key
	}
	handle := func(r decider.Request) decider.Answer {
		env := make(map[string]string, len(r.Env))
		for _, kv := range r.Env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
		var out, errb bytes.Buffer
		code := hookIn(hookCtx{cwd: r.Cwd, gate: gt}, r.Args, bytes.NewReader(r.Payload), &out, &errb, func(k string) string { return env[k] })
		return decider.Answer{Exit: code, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	}
	err = serve.Serve(serve.Options{Dir: *dir, Key: key, Idle: *idle, Stale: stale, Handle: handle})
	if errors.Is(err, serve.ErrBusy) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy serve:", err)
		return 1
	}
	return 0
}
