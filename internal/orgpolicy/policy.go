package orgpolicy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Version is the policy object's "version" (docs/policy.md §2).
const Version = "logbook/policy@0"

// Limits of a policy (docs/policy.md §2): a policy over them is refused
// whole, never cut.
const (
	MaxFile     = 1 << 20 // bytes of a signed policy file
	MaxRules    = 1000
	MaxRuleText = 16 << 10 // bytes of one rule's CEL
	MaxPointers = 256
)

// Decision is what a rule or the default decides for a call.
type Decision string

// The decisions.
const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
	Ask   Decision = "ask"
	// Hold parks the call until an approver other than the developer
	// approves or denies that exact call (logbook-server, docs/approvals.md);
	// a hook with no server to park it denies it.
	Hold Decision = "hold"
)

func decision(s string) (Decision, bool) {
	switch d := Decision(s); d {
	case Allow, Deny, Ask, Hold:
		return d, true
	}
	return "", false
}

// Rule is one named CEL condition and what it decides.
type Rule struct {
	Name     string
	When     string // CEL, of type bool, over the variables of docs/policy.md §3
	Decision Decision
	Reason   string // shown to the agent (and the user) when it denies or asks
}

// Policy is an organization's policy, as signed.
type Policy struct {
	Name          string
	Default       Decision // when no rule matches
	DefaultReason string
	// OnError is the decision when a rule fails at run time or goes over
	// its cost: the call is decided as if that rule had matched with it.
	OnError Decision
	// Audit: decisions are recorded but never enforced (a roll-out's
	// first weeks); the gate steps say enforced false.
	Audit  bool
	Rules  []Rule
	Redact []string // RFC 6901 pointers into the hook payload (redact.go)
	// Digest is sha256 of the canonical policy object: the policy's
	// identity in gate steps and in --require-policy.
	Digest string
}

// Parse reads a policy object (the "policy" member of a signed file) and
// computes its digest. Every error is an *Error with ErrMalformed or
// ErrRedactScope.
func Parse(v *strictjson.Value) (*Policy, error) {
	if v == nil || v.Kind != strictjson.Object {
		return nil, fail(ErrMalformed, "the policy is not a JSON object")
	}
	if v.Flags != 0 {
		return nil, fail(ErrMalformed, "the policy holds a duplicate key, a lone surrogate or bad text")
	}
	canon, err := jcs.Append(nil, v)
	if err != nil {
		return nil, fail(ErrMalformed, err.Error())
	}
	sum := sha256.Sum256(canon)
	p := &Policy{Digest: hex.EncodeToString(sum[:]), Default: Allow, OnError: Deny}
	known := map[string]bool{"version": true, "name": true, "default": true, "defaultReason": true, "onError": true, "mode": true, "rules": true, "redact": true}
	for _, m := range v.Members {
		if !known[m.Key] {
			return nil, fail(ErrMalformed, fmt.Sprintf("unknown member %q (docs/policy.md §2 lists the members)", m.Key))
		}
	}
	if s, _ := v.GetString("version"); s != Version {
		return nil, fail(ErrMalformed, fmt.Sprintf("version must be %q", Version))
	}
	var ok bool
	str := func(key string, dst *string) error {
		m := v.Get(key)
		if m == nil {
			return nil
		}
		if m.Kind != strictjson.String {
			return fail(ErrMalformed, key+" must be a string")
		}
		*dst = m.Str
		return nil
	}
	var def, onErr, mode string
	for key, dst := range map[string]*string{"name": &p.Name, "defaultReason": &p.DefaultReason, "default": &def, "onError": &onErr, "mode": &mode} {
		if err := str(key, dst); err != nil {
			return nil, err
		}
	}
	if def != "" {
		if p.Default, ok = decision(def); !ok {
			return nil, fail(ErrMalformed, "default must be allow, deny or ask")
		}
	}
	if onErr != "" {
		if p.OnError, ok = decision(onErr); !ok {
			return nil, fail(ErrMalformed, "onError must be allow, deny or ask")
		}
	}
	switch mode {
	case "", "enforce":
	case "audit":
		p.Audit = true
	default:
		return nil, fail(ErrMalformed, "mode must be enforce or audit")
	}
	if err := p.parseRules(v.Get("rules")); err != nil {
		return nil, err
	}
	if err := p.parseRedact(v.Get("redact")); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Policy) parseRules(v *strictjson.Value) error {
	if v == nil {
		return nil
	}
	if v.Kind != strictjson.Array {
		return fail(ErrMalformed, "rules must be an array")
	}
	if len(v.Items) > MaxRules {
		return fail(ErrMalformed, fmt.Sprintf("%d rules, at most %d", len(v.Items), MaxRules))
	}
	seen := map[string]bool{}
	for i := range v.Items {
		r := &v.Items[i]
		if r.Kind != strictjson.Object {
			return fail(ErrMalformed, fmt.Sprintf("rules[%d] is not an object", i))
		}
		var rule Rule
		for _, m := range r.Members {
			if m.Value.Kind != strictjson.String {
				return fail(ErrMalformed, fmt.Sprintf("rules[%d].%s must be a string", i, m.Key))
			}
			switch m.Key {
			case "name":
				rule.Name = m.Value.Str
			case "when":
				rule.When = m.Value.Str
			case "decision":
				d, ok := decision(m.Value.Str)
				if !ok {
					return fail(ErrMalformed, fmt.Sprintf("rules[%d].decision must be allow, deny or ask", i))
				}
				rule.Decision = d
			case "reason":
				rule.Reason = m.Value.Str
			default:
				return fail(ErrMalformed, fmt.Sprintf("rules[%d] has an unknown member %q", i, m.Key))
			}
		}
		switch {
		case !plainName(rule.Name):
			return fail(ErrMalformed, fmt.Sprintf("rules[%d].name must be 1-64 letters, digits, '.', '_' or '-'", i))
		case seen[rule.Name]:
			return fail(ErrMalformed, fmt.Sprintf("rules[%d]: the name %q is used twice", i, rule.Name))
		case strings.TrimSpace(rule.When) == "":
			return fail(ErrMalformed, fmt.Sprintf("rule %s: when is empty", rule.Name))
		case len(rule.When) > MaxRuleText:
			return fail(ErrMalformed, fmt.Sprintf("rule %s: when is %d bytes, at most %d", rule.Name, len(rule.When), MaxRuleText))
		case rule.Decision == "":
			return fail(ErrMalformed, fmt.Sprintf("rule %s has no decision", rule.Name))
		}
		seen[rule.Name] = true
		p.Rules = append(p.Rules, rule)
	}
	return nil
}

func plainName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// ParseText reads a policy object's JSON text (not signed: for writing
// and trying rules).
func ParseText(text []byte) (*Policy, error) {
	if len(text) > MaxFile {
		return nil, fail(ErrTooLarge, fmt.Sprintf("%d bytes, at most %d", len(text), MaxFile))
	}
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: 64})
	if err != nil {
		return nil, fail(ErrMalformed, "not strict JSON: "+err.Error())
	}
	return Parse(v)
}
