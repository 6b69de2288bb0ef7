package gate

import (
	"crypto/ed25519"
	"fmt"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Gate is a loaded policy, ready to decide calls, or the reason it could
// not be loaded and what is decided then.
type Gate struct {
	Signed  *orgpolicy.Signed
	Program *Program
	// LoadErr, when not nil, is why the policy is not in force; every
	// gated call is then decided OnLoadError, and its gate step says why.
	LoadErr     *orgpolicy.Error
	OnLoadError orgpolicy.Decision
}

// Load opens, verifies (under trusted) and compiles a signed policy file's
// bytes. It never fails: a policy that cannot be used gives a Gate whose
// LoadErr says why and whose calls are decided onLoadError (deny: fail
// closed; allow: fail open, still recorded). cacheDir keeps the checked
// rules between processes (CompileCached; "": none).
func Load(file []byte, trusted []ed25519.PublicKey, onLoadError orgpolicy.Decision, cacheDir string) *Gate {
	g := &Gate{OnLoadError: onLoadError}
	s, err := orgpolicy.Open(file, trusted)
	if err == nil {
		g.Program, _, err = CompileCached(s.Policy, cacheDir)
	}
	if err != nil {
		g.LoadErr = asError(err)
		return g
	}
	g.Signed = s
	return g
}

// Failed is a Gate for a policy that could not even be read.
func Failed(code, detail string, onLoadError orgpolicy.Decision) *Gate {
	return &Gate{LoadErr: fail(code, detail), OnLoadError: onLoadError}
}

func asError(err error) *orgpolicy.Error {
	if e, ok := err.(*orgpolicy.Error); ok {
		return e
	}
	return fail(orgpolicy.ErrMalformed, err.Error())
}

// Verdict is one call's decision, its gate step, and whether it is
// enforced (false in audit mode).
type Verdict struct {
	Result
	Enforced bool
	Step     chain.Step
}

// Check decides the call in payload (ev as the recorder read it) and
// returns its gate step, to be appended right before ev's own step.
func (g *Gate) Check(payload []byte, ev hookevent.Event) Verdict {
	var v Verdict
	switch {
	case g.LoadErr != nil:
		v.Result = orgpolicy.Result{Decision: g.OnLoadError, Error: g.LoadErr.Error(),
			Reason: fmt.Sprintf("the organization policy could not be loaded (%s); calls are decided %s until it is fixed", g.LoadErr.Code, g.OnLoadError)}
		v.Enforced = true
	default:
		v.Result = g.Program.Decide(InputOf(payload, ev))
		v.Enforced = !g.Signed.Audit
	}
	v.Step = g.step(ev, v)
	return v
}

// InputOf reads what the rules see from a hook payload.
func InputOf(payload []byte, ev hookevent.Event) Input {
	in := Input{Event: ev.Name, Cwd: ev.Cwd, Harness: ev.Harness, Session: ev.Session}
	in.Tool, _ = ev.Step.Data.GetString("tool")
	root, err := strictjson.Parse(payload, strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth})
	if err != nil || root.Kind != strictjson.Object {
		return in
	}
	for _, k := range []string{"tool_input", "toolInput", "toolArgs", "tool_args"} {
		if v := lastMember(root, k); v != nil {
			in.ToolInput = FromJSON(v)
			// Cursor and Copilot CLI send the input as JSON text.
			if v.Kind == strictjson.String {
				if d, err := strictjson.Parse([]byte(v.Str), strictjson.Options{Lenient: true, MaxDepth: hookevent.MaxPayloadDepth}); err == nil && d.Kind == strictjson.Object {
					in.ToolInput = FromJSON(d)
				}
			}
			break
		}
	}
	if in.ToolInput == nil {
		// Cursor's beforeShellExecution and beforeReadFile put the
		// command or the file at the top level.
		m := map[string]any{}
		for _, k := range []string{"command", "file_path"} {
			if s, ok := root.GetString(k); ok {
				m[k] = s
			}
		}
		in.ToolInput = m
	}
	if s, ok := root.GetString("agent_id"); ok {
		in.AgentID = s
	}
	if s, ok := root.GetString("permission_mode"); ok {
		in.Mode = s
	}
	return in
}

func lastMember(v *strictjson.Value, key string) *strictjson.Value {
	var out *strictjson.Value
	for i := range v.Members {
		if v.Members[i].Key == key {
			out = &v.Members[i].Value
		}
	}
	return out
}

// step is the gate step of a call (docs/policy.md §6).
func (g *Gate) step(ev hookevent.Event, v Verdict) chain.Step {
	str := func(k, s string) strictjson.Member { return strictjson.Member{Key: k, Value: strictjson.Str(s)} }
	m := []strictjson.Member{str("event", orgpolicy.GateEvent), str("gated", ev.Name)}
	for _, k := range []string{"tool", "toolUseId"} {
		if s, ok := ev.Step.Data.GetString(k); ok {
			m = append(m, str(k, s))
		}
	}
	m = append(m, str("decision", string(v.Decision)), strictjson.Member{Key: "enforced", Value: strictjson.Bool(v.Enforced)})
	if v.Rule != "" {
		m = append(m, str("rule", v.Rule))
	}
	if v.Reason != "" {
		m = append(m, str("reason", redact.Clip(redact.String(v.Reason), 1024)))
	}
	if v.Error != "" {
		m = append(m, str("error", redact.Clip(redact.String(v.Error), 1024)))
	}
	if s := g.Signed; s != nil {
		m = append(m, str("policy", s.Digest), str("policyKey", s.KeySPKI), str("policySignature", s.Signature))
		if s.Name != "" {
			m = append(m, str("policyName", redact.Clip(s.Name, 128)))
		}
	}
	tool, _ := ev.Step.Data.GetString("tool")
	summary := fmt.Sprintf("policy %s %s", v.Decision, tool)
	if v.Rule != "" {
		summary += " (" + v.Rule + ")"
	}
	if !v.Enforced {
		summary += " [audit]"
	}
	if g.LoadErr != nil {
		summary += " [policy not loaded: " + g.LoadErr.Code + "]"
	}
	return chain.Step{Kind: "gate", Summary: summary, Data: strictjson.Obj(m...),
		Inputs: append([]string{}, ev.Step.Inputs...), Outputs: []string{}}
}
