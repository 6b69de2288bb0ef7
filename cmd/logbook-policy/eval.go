package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// eval decides one payload and prints the decision, enforcing and
// recording nothing: how a policy author tries a rule on real events.
// Its status answers "is this call allowed?" as grep answers "does it
// match?": 0 allow, 1 deny or ask (not without a person), 2 no answer
// (usage, I/O, a payload or policy that cannot be read or trusted).
func eval(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("logbook-policy eval", flag.ContinueOnError)
	policy := fs.String("policy", "", "the signed policy `FILE`, or an unsigned POLICY.json with --unsigned")
	unsigned := fs.Bool("unsigned", false, "the --policy file is a policy object not yet signed (for writing rules)")
	var pk cli.List
	fs.Var(&pk, "policy-key", "trusted policy signer: SPKI PEM public key `FILE` (repeatable; none: any sound signature)")
	harness := fs.String("harness", "", "the harness the payload comes from, when its shape does not say")
	if code, done := cli.Parse(fs, args, "logbook-policy eval --policy FILE [--unsigned] [--policy-key PUB] < PAYLOAD.json", stdout, stderr); done {
		return code
	}
	if *policy == "" {
		fmt.Fprintln(stderr, "logbook-policy eval: give --policy FILE")
		return 2
	}
	keys, err := trusted(pk)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy:", err)
		return 2
	}
	file, err := readPolicy(*policy)
	if err != nil {
		return noAnswer(stderr, err)
	}
	var p *orgpolicy.Policy
	if *unsigned {
		p, err = orgpolicy.ParseText(file)
	} else {
		var s *orgpolicy.Signed
		if s, err = orgpolicy.Open(file, keys); err == nil {
			p = s.Policy
		}
	}
	if err != nil {
		return noAnswer(stderr, err)
	}
	prog, err := gate.Compile(p)
	if err != nil {
		return noAnswer(stderr, err)
	}
	payload, err := bigbuf.ReadStream(io.LimitReader(stdin, readlimit.Key*512))
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy: read stdin:", err)
		return 2
	}
	payload = cli.StripBOM(payload)
	ev, err := hookevent.ParseWith(payload, hookevent.Hint{Harness: *harness})
	if err != nil {
		fmt.Fprintln(stderr, "logbook-policy: the payload:", err)
		return 2
	}
	in := gate.InputOf(payload, ev)
	res := prog.Decide(in)
	out := map[string]any{"event": ev.Name, "decision": res.Decision, "rule": res.Rule, "reason": res.Reason, "gated": kinds.Gated(ev.Name), "policy": p.Digest}
	if res.Error != "" {
		out["error"] = res.Error
	}
	if prog.ReadsCommands() {
		// What the rules read of the command: the author sees why.
		cmds, cerr := gate.Commands(in.ToolInput)
		out["commands"] = cmds
		if cerr != "" {
			out["command_error"] = cerr
		}
	}
	// encoding/json only prints this report; it judges no canonical bytes.
	b, _ := json.Marshal(out)
	fmt.Fprintln(stdout, string(b))
	if res.Decision == orgpolicy.Allow {
		return 0
	}
	return 1
}

// noAnswer prints why the policy could not decide (its code, for a
// policy refused): exit 2, never 1, which a script reads as a deny.
func noAnswer(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "logbook-policy:", err)
	return 2
}
