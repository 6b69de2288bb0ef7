// Command logbook-install writes, merges or removes a harness's hook
// configuration so that every event reaches record-step and the session's
// end reaches logbook-seal --hook (internal/install; docs/install.md).
// `record-step install|uninstall …` runs it: the code lives in its own
// binary so that record-step, which runs on every tool call, stays small
// and starts as fast as before.
//
//	logbook-install install   --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--no-key] [--dry-run]
//	logbook-install uninstall --harness NAME [--project DIR | --user | --local | --config FILE] [--dry-run]
//
// A project install copies the binaries the hooks call into
// PROJECT/.logbook/bin (from --bin DIR, by default this program's
// directory), adds .logbook/ to the project's .gitignore, and makes a
// signing key unless one is found (--no-key: record only, seal later).
//
// Exit status: 0 done (or nothing to do), 1 refused or failed (nothing
// written; or no signing key could be made), 2 usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/install"
)

const synopsis = `logbook-install install   --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--no-key] [--policy FILE --policy-key PUB] [--dry-run]
logbook-install uninstall --harness NAME [--project DIR | --user | --local | --config FILE] [--dry-run]
logbook-install install|uninstall --help   (the flags of each)`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "install" || args[0] == "uninstall") {
		return verb(args[0], args[1:], stdout, stderr)
	}
	// No verb: only --help and --version mean something.
	fs := flag.NewFlagSet("logbook-install", flag.ContinueOnError)
	if code, done := cli.Parse(fs, args, synopsis, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "logbook-install: unknown verb %q: want install or uninstall (run 'logbook-install --help')\n", fs.Arg(0))
	} else {
		fmt.Fprintln(stderr, "logbook-install: no verb: want install or uninstall (run 'logbook-install --help')")
	}
	return 2
}

// verb parses the flags of install or uninstall.
func verb(name string, args []string, stdout, stderr io.Writer) int {
	o := install.Options{Verb: name}
	fs := flag.NewFlagSet("record-step "+name, flag.ContinueOnError)
	fs.StringVar(&o.Harness, "harness", "", "the harness: "+strings.Join(hookconf.Names(), ", "))
	fs.StringVar(&o.Project, "project", ".", "the project `DIR` whose configuration to edit")
	fs.BoolVar(&o.User, "user", false, "edit the user-level configuration (in the home directory) instead")
	fs.BoolVar(&o.Local, "local", false, "Claude Code: edit .claude/settings.local.json (not committed) instead of settings.json")
	fs.StringVar(&o.Config, "config", "", "edit this configuration `FILE` (overrides --project, --user and --local)")
	fs.StringVar(&o.Bin, "bin", "", "the `DIR` holding record-step and logbook-seal: copied into PROJECT/.logbook/bin for a project, called there for --user and --config (default: this program's directory)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the change as a diff and write nothing")
	fs.BoolVar(&o.Managed, "managed", false, "as root: write the hooks into the harness's system-wide managed configuration (Claude Code: /etc/claude-code/managed-settings.json; macOS: /Library/Application Support/ClaudeCode/managed-settings.json; or --config FILE; not offered on Windows) with the switch that makes it ignore the agent's own hook files (allowManagedHooksOnly); needs --server and a --bin DIR only root can write")
	fs.BoolVar(&o.FollowSymlinks, "follow-symlinks", false, "write through a symbolic link at a path install writes (the configuration, .logbook, .gitignore, the key), saying where; without it such a link is refused")
	fs.StringVar(&o.Server, "server", "", "send the events to a logbook server at `URL` (http://IP:PORT or unix:/PATH; docs/server.md): Claude Code gets HTTP hooks over TCP (unless --command-hooks), other harnesses record-step --server with the server's key pinned; the server seals")
	if name == "install" {
		fs.StringVar(&o.ServerKey, "server-key", "", "with --server: the server's Ed25519 public key `HEX` (GET /v1/key's publicKey), written into each record-step --server hook, which then takes only answers the server signed (default: asked of the server now, over http://)")
		fs.BoolVar(&o.CommandHooks, "command-hooks", false, "with --server: Claude Code gets record-step --server command hooks for every event instead of its HTTP hooks, which cannot check who answers (a process squatting the server's port)")
		fs.BoolVar(&o.Trailer, "trailer", false, "in a git work tree, also add a commit-msg hook that puts a Logbook-Record: SESSION trailer in each commit made while a session records (opt-in: it changes every commit message, the person's too; the git note is the binding either way: docs/commits.md)")
		fs.StringVar(&o.Enroll, "enroll", "", "with --server: trade this enrollment `CODE` (logbook-server enroll) for your own credential, kept 0600 in logbook's configuration directory, which the hooks send (docs/fleet.md)")
		fs.BoolVar(&o.NoGuard, "no-guard", false, "Claude Code: do not add the user-level hook that refuses sessions started below the project (where its hooks do not run)")
		fs.StringVar(&o.Policy, "policy", "", "gate each PreToolUse (and PermissionRequest) with the signed organization policy `FILE`: the hooks of those events run record-step --policy FILE --policy-key PUB (docs/policy.md §7); install checks the signature first and copies neither file")
		fs.Var((*cli.List)(&o.PolicyKeys), "policy-key", "with --policy: the policy signer's SPKI PEM public key `PUB` (repeatable; at least one)")
		fs.StringVar(&o.RequirePolicy, "require-policy", "", "with --policy: pin the policy's `DIGEST` (logbook-policy verify prints it): install refuses another file, and the hooks decide by no other (another policy, even one the key signed, fails as --policy-fail says)")
		fs.StringVar(&o.PolicyFail, "policy-fail", "", "with --policy: a gated call the policy cannot decide (policy unreadable, record-step missing) is `deny` (default, blocked) or allow")
		fs.BoolVar(&o.NoKey, "no-key", false, "install without a signing key: sessions are recorded, not sealed at their end (seal them later); without it, install makes a key or fails")
	}
	if code, done := cli.Parse(fs, args, "record-step "+name+" --harness NAME [--project DIR | --user | --local | --config FILE] [--bin DIR] [--no-key] [--server URL [--server-key HEX] [--command-hooks] [--enroll CODE]] [--trailer] [--managed] [--policy FILE --policy-key PUB [--require-policy DIGEST] [--policy-fail deny|allow]] [--dry-run]", stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "record-step %s: unexpected argument %q\n", name, fs.Arg(0))
		return install.Usage
	}
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		o.Self = exe
	}
	return install.Run(o, stdout, stderr, os.Getenv, time.Now())
}
