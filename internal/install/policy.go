package install

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// usageError is a flag combination install refuses (exit 2).
type usageError string

func (e usageError) Error() string { return string(e) }

// policyGate is what install --policy adds: the flags of the gated hooks'
// command lines and what the notes say.
type policyGate struct {
	flags string
	notes []string
}

// checkPolicy checks install's --policy flags and the policy itself: the
// file must be a policy signed by one of the --policy-key keys (as the
// hook will check it on every call), so a wrong file or key is found now,
// not as every tool call of every session blocked. Neither file is
// copied: the hooks name them where they are, by absolute path (they
// belong outside the project, where the agent cannot change them).
func checkPolicy(o Options, spec *hookconf.Spec) (*policyGate, error) {
	switch {
	case o.Verb != "install":
		return nil, usageError("--policy is for install")
	case o.Policy == "":
		return nil, usageError("--policy-key, --require-policy and --policy-fail go with --policy FILE (the signed organization policy)")
	case o.RequirePolicy != "" && !format.Hex64(o.RequirePolicy):
		return nil, usageError(fmt.Sprintf("--require-policy %q: want a policy digest, 64 lowercase hex (logbook-policy verify prints it)", o.RequirePolicy))
	case len(o.PolicyKeys) == 0:
		return nil, usageError("--policy needs --policy-key PUB: the hooks trust the policy only under its signer's public key (docs/policy.md)")
	case o.PolicyFail != "" && o.PolicyFail != "deny" && o.PolicyFail != "allow":
		return nil, usageError(fmt.Sprintf("--policy-fail must be deny or allow, not %q", o.PolicyFail))
	case o.Server != "":
		return nil, usageError("--policy with --server: the server gates the calls it is sent; start it with logbook-server --policy FILE --policy-key PUB (docs/policy.md §7)")
	}
	var gated []string
	for _, e := range spec.Events {
		if !e.Seal && hookconf.Gated(e.Name) {
			gated = append(gated, e.Name)
		}
	}
	if len(gated) == 0 || spec.Fixed != "" {
		return nil, usageError(spec.Harness + " has no PreToolUse event for a policy to gate")
	}
	file, err := readlimit.Small(o.Policy, orgpolicy.MaxFile)
	if err != nil {
		return nil, fmt.Errorf("--policy %s: %v", o.Policy, err)
	}
	trusted, err := keys.ReadPublicFiles("--policy-key", o.PolicyKeys)
	if err != nil {
		for _, f := range o.PolicyKeys {
			if k, _ := readlimit.Small(f, readlimit.Key); strings.Contains(string(k), "PRIVATE KEY") {
				return nil, fmt.Errorf("--policy-key %s is a private key: give its public half (KEY.pub); a private key belongs with the policy's signer only, and install names none in a hook", f)
			}
		}
		return nil, err
	}
	signed, err := orgpolicy.Open(file, trusted)
	if err != nil {
		return nil, fmt.Errorf("--policy %s: %v", o.Policy, err)
	}
	if o.RequirePolicy != "" && signed.Digest != o.RequirePolicy {
		return nil, fmt.Errorf("--policy %s: %s: its digest is %s, --require-policy pins %s", o.Policy, orgpolicy.ErrUntrusted, signed.Digest, o.RequirePolicy)
	}
	if need := filepath.Join(o.Bin, hookconf.Exe(o.goos(), "logbook-policy")); !o.project() && !executable(o.goos(), need) {
		return nil, fmt.Errorf("--policy: %s is missing: record-step --policy runs logbook-policy from beside it", need)
	}
	abs, err := filepath.Abs(o.Policy)
	if err != nil {
		return nil, err
	}
	shell, _ := hookconf.HookShell(o.goos(), o.Harness) // resolve refuses an unknown one
	g := &policyGate{flags: " --policy " + quoteArg(shell, abs)}
	inside := []string{}
	if within(o, abs) {
		inside = append(inside, o.Policy)
	}
	for _, k := range o.PolicyKeys {
		ak, err := filepath.Abs(k)
		if err != nil {
			return nil, err
		}
		g.flags += " --policy-key " + quoteArg(shell, ak)
		if within(o, ak) {
			inside = append(inside, k)
		}
	}
	if o.RequirePolicy != "" {
		g.flags += " --require-policy " + o.RequirePolicy
	}
	if o.PolicyFail == "allow" {
		g.flags += " --policy-fail allow"
	}
	mode := "enforced"
	if signed.Audit {
		mode = "audit mode: decisions recorded, not enforced"
	}
	fail := "blocked (--policy-fail deny)"
	if o.PolicyFail == "allow" {
		fail = "let through (--policy-fail allow)"
	}
	if o.RequirePolicy != "" {
		mode += ", pinned by --require-policy"
	}
	g.notes = append(g.notes, fmt.Sprintf("policy %s (signed by %s, %s) gates %s: verify records with logbook-verify --policy-key %s --require-policy %s; a call the policy cannot decide is %s",
		signed.Digest, keyName(signed.Key), mode, strings.Join(gated, ", "), o.PolicyKeys[0], signed.Digest, fail))
	if len(inside) > 0 {
		g.notes = append(g.notes, "WARNING: "+strings.Join(inside, ", ")+" is inside the project, where the agent can change or remove it: keep the policy and its key outside (e.g. /etc/logbook; docs/policy.md)")
	}
	return g, nil
}

func keyName(k ed25519.PublicKey) string { return "key " + edkey.KeyID(edkey.SPKI(k))[:16] }

// project reports a project install (binaries copied into .logbook/bin).
func (o Options) project() bool { return !o.User && o.Config == "" && !o.Managed }

// within reports a path inside the project directory (or the home
// directory's harness folder for --user: the agent's reach either way).
func within(o Options, abs string) bool {
	if !o.project() {
		return false
	}
	root, err := filepath.Abs(o.Project)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// executable reports whether p is a program on goos: a regular file with
// an execute bit (Windows has none: a regular file, named .exe).
func executable(goos, p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && (goos == "windows" || st.Mode().Perm()&0o111 != 0)
}

// binaries is what install copies for o: with --policy, logbook-policy is
// needed, not only copied when there.
func (o Options) binaries() binaries {
	b := o.binaryNames()
	return binaries{needed: exeNames(o.goos(), b.needed), optional: exeNames(o.goos(), b.optional)}
}

func (o Options) binaryNames() binaries {
	b := binariesFor(o.Server != "")
	if o.Policy == "" || o.Server != "" {
		return b
	}
	b.needed = append(append([]string{}, b.needed...), "logbook-policy")
	var opt []string
	for _, n := range b.optional {
		if n != "logbook-policy" {
			opt = append(opt, n)
		}
	}
	b.optional = opt
	return b
}
