// Command logbook-policy makes, signs and checks an organization's policy
// for tool calls (docs/policy.md), and is the gated hook record-step hands
// a call to when its hook names a policy.
//
//	logbook-policy sign --key FILE [--out FILE] POLICY.json
//	logbook-policy verify --policy-key PUB [--require DIGEST] SIGNED.json
//	logbook-policy eval --policy SIGNED.json [--policy-key PUB] < PAYLOAD.json
//	logbook-policy hook --policy SIGNED.json --policy-key PUB [--policy-fail deny|allow] [record-step flags] < PAYLOAD.json
//	logbook-policy serve --policy SIGNED.json --policy-key PUB [--policy-fail deny|allow] [--socket-dir DIR] [--idle DURATION]
//
// sign checks the policy (shape, CEL, redaction scope) before it signs.
// verify prints the policy's digest and exits 1 with a named reason when
// it is not sound or not signed by PUB. eval prints what the policy
// decides for one hook payload, enforcing nothing (a dry run). hook is
// record-step with the gate: it records a gate step before each
// PreToolUse (and PermissionRequest) and answers the harness. serve is
// the long-lived decider record-step starts: hook, run in one process
// for every call, the policy loaded and compiled once.
//
// Exit status (sign, verify): 0 done, 1 refused (the reason is printed),
// 2 usage or I/O error. eval, like grep: 0 allow, 1 deny or ask, 2 no
// decision (usage, I/O, a policy refused). hook follows the hook
// contract (docs/policy.md §7).
package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

const synopsis = `logbook-policy sign --key FILE [--out FILE] POLICY.json
logbook-policy verify --policy-key PUB [--require DIGEST] SIGNED.json
logbook-policy eval --policy SIGNED.json [--policy-key PUB] < PAYLOAD.json
logbook-policy hook --policy SIGNED.json --policy-key PUB [--policy-fail deny|allow] [--dir DIR] [--harness NAME] [--event NAME] < PAYLOAD.json
logbook-policy serve --policy SIGNED.json --policy-key PUB [--policy-fail deny|allow] [--socket-dir DIR] [--idle DURATION]`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "logbook-policy: name a subcommand (run 'logbook-policy --help' for usage)")
		return 2
	}
	switch args[0] {
	case "sign":
		return sign(args[1:], stdout, stderr)
	case "verify":
		return verify(args[1:], stdout, stderr)
	case "eval":
		return eval(args[1:], stdin, stdout, stderr)
	case "hook":
		return hook(args[1:], stdin, stdout, stderr, getenv)
	case "serve":
		return serveCmd(args[1:], stdout, stderr, getenv)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, "usage: "+indent(synopsis))
		fmt.Fprintln(stdout, "\nrun 'logbook-policy SUBCOMMAND --help' for its flags; the policy format is docs/policy.md")
		return 0
	case "-version", "--version":
		return versionOf(stdout)
	}
	fmt.Fprintf(stderr, "logbook-policy: unknown subcommand %q (run 'logbook-policy --help' for usage)\n", args[0])
	return 2
}

// trusted reads the --policy-key files.
func trusted(files cli.List) ([]ed25519.PublicKey, error) {
	return keys.ReadPublicFiles("--policy-key", files)
}
