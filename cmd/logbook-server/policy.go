package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/orgpolicy/gate"
	"github.com/logbook-project/logbook/internal/readlimit"
	"github.com/logbook-project/logbook/internal/server"
)

// policyFlags gate every PreToolUse the server records (docs/policy.md).
type policyFlags struct {
	file, approvers string
	text            []byte // the policy file as read
	keys            []string
	wait            time.Duration
}

func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.file, "policy", "", "decide every PreToolUse (and PermissionRequest) by the signed organization policy `FILE` (logbook-policy sign): a gate step is recorded before the event and the decision is the hook's answer")
	fs.Func("policy-key", "trusted policy signer, SPKI PEM public key `FILE` (repeatable; needed with --policy)", func(v string) error {
		p.keys = append(p.keys, v)
		return nil
	})
	fs.StringVar(&p.approvers, "approvers", "", "`FILE` of approvers, one \"NAME TOKEN\" a line: they list and decide the calls the policy holds (GET/POST /v1/approvals, docs/approvals.md); a hook sending one's token names its developer")
	fs.DurationVar(&p.wait, "approval-wait", server.DefaultApprovalWait, "longest a held call waits for an approver before it is denied (the hook's own wait bounds it)")
}

// actor reads --approvers: who may decide held calls.
func (p *policyFlags) actor() (server.Actor, error) {
	if p.approvers == "" {
		return nil, nil
	}
	return server.ReadApprovers(p.approvers)
}

// load reads, verifies and compiles the policy once, at start: a server
// with a policy that cannot be used does not start (it says why), where a
// hook would decide --policy-fail.
func (p *policyFlags) load() (*gate.Gate, error) {
	if p.file == "" {
		if len(p.keys) > 0 {
			return nil, errors.New("--policy-key without --policy")
		}
		return nil, nil
	}
	if len(p.keys) == 0 {
		return nil, errors.New("--policy needs --policy-key: the policy's signer must be pinned")
	}
	trusted, err := keys.ReadPublicFiles("--policy-key", p.keys)
	if err != nil {
		return nil, err
	}
	text, err := readlimit.Small(p.file, orgpolicy.MaxFile)
	if err != nil {
		return nil, fmt.Errorf("--policy: %w", err)
	}
	p.text = text
	g := gate.Load(text, trusted, orgpolicy.Deny, "")
	if g.LoadErr != nil {
		return nil, fmt.Errorf("--policy %s: %v", p.file, g.LoadErr)
	}
	return g, nil
}
