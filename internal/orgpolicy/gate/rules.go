package gate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"

	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Limits of one evaluation (docs/policy.md §3). CostLimit is cel-go's
// runtime cost units per rule (about one per value visited or compared);
// EvalBudget bounds the wall time of all rules of one call together, well
// under any harness's hook timeout.
const (
	CostLimit  = 1_000_000
	EvalBudget = 2 * time.Second
)

// Input is what a rule sees of a hook event (docs/policy.md §3).
type Input struct {
	Tool      string
	ToolInput any // the decoded tool input: map[string]any, []any, string, float64, int64, bool or nil
	Event     string
	Cwd       string
	Harness   string
	AgentID   string
	Session   string
	Mode      string // the harness's permission mode, when it says
}

// Program is a policy's rules, compiled and checked once.
type Program struct {
	Policy *orgpolicy.Policy
	rules  []cel.Program
	// folds[i]: rule i has a comprehension (all, exists, map, filter…).
	// cel-go checks for an interrupt (the time budget) only between a
	// comprehension's iterations, so only such a rule is run under the
	// budget's context; the others run without one, which is the same
	// evaluation without the context's per-call plumbing (a child
	// context, pooled trackers: more than half of a 50-rule call's cost).
	// The cost limit bounds every rule either way.
	folds []bool
	// shell: a rule reads commands or command_error, so the call's shell
	// command is parsed (only then: a policy without such a rule costs
	// and decides what it did before they existed).
	shell bool
}

var env = sync1(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("tool", cel.StringType),
		cel.Variable("input", cel.DynType),
		cel.Variable("event", cel.StringType),
		cel.Variable("cwd", cel.StringType),
		cel.Variable("harness", cel.StringType),
		cel.Variable("agent_id", cel.StringType),
		cel.Variable("session", cel.StringType),
		cel.Variable("permission_mode", cel.StringType),
		cel.Variable("commands", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Variable("command_error", cel.StringType),
		ext.Strings(),
		cel.ExtendedValidations(),
	)
})

// Compile parses and type-checks every rule (each must be a bool) and
// plans it with the cost limit. A rule that does not compile is an
// *Error ErrRuleSyntax naming it.
func Compile(p *orgpolicy.Policy) (*Program, error) {
	asts, err := check(p)
	if err != nil {
		return nil, err
	}
	return plan(p, asts)
}

// check parses and type-checks each rule.
func check(p *orgpolicy.Policy) ([]*cel.Ast, error) {
	e, err := env()
	if err != nil {
		return nil, fail(orgpolicy.ErrRuleSyntax, "cannot make the CEL environment: "+err.Error())
	}
	asts := make([]*cel.Ast, len(p.Rules))
	for i, r := range p.Rules {
		ast, iss := e.Compile(r.When)
		if iss != nil && iss.Err() != nil {
			return nil, fail(orgpolicy.ErrRuleSyntax, fmt.Sprintf("rule %s: %s", r.Name, oneLine(iss.Err().Error())))
		}
		if ast.OutputType() != cel.BoolType {
			return nil, fail(orgpolicy.ErrRuleSyntax, fmt.Sprintf("rule %s: when is of type %s, want bool", r.Name, ast.OutputType()))
		}
		asts[i] = ast
	}
	return asts, nil
}

// plan makes the checked rules runnable, with the cost limit, an interrupt
// check (the time budget) and constant regexps compiled once.
func plan(p *orgpolicy.Policy, asts []*cel.Ast) (*Program, error) {
	e, err := env()
	if err != nil {
		return nil, fail(orgpolicy.ErrRuleSyntax, "cannot make the CEL environment: "+err.Error())
	}
	prog := &Program{Policy: p, rules: make([]cel.Program, len(asts)), folds: make([]bool, len(asts))}
	for i, ast := range asts {
		prog.folds[i] = hasFold(ast)
		prog.shell = prog.shell || readsShell(ast)
		prog.rules[i], err = e.Program(ast, cel.CostLimit(CostLimit), cel.InterruptCheckFrequency(64), cel.EvalOptions(cel.OptOptimize))
		if err != nil {
			return nil, fail(orgpolicy.ErrRuleSyntax, fmt.Sprintf("rule %s: %s", p.Rules[i].Name, oneLine(err.Error())))
		}
	}
	return prog, nil
}

// hasFold says whether a checked rule has a comprehension (the macros
// expand to them), the only place cel-go looks at the interrupt.
func hasFold(a *cel.Ast) bool {
	return len(celast.MatchDescendants(celast.NavigateAST(a.NativeRep()), celast.KindMatcher(celast.ComprehensionKind))) > 0
}

// ReadsCommands says whether a rule reads commands or command_error.
func (p *Program) ReadsCommands() bool { return p.shell }

// readsShell says whether a checked rule names commands or command_error.
func readsShell(a *cel.Ast) bool {
	return len(celast.MatchDescendants(celast.NavigateAST(a.NativeRep()), func(e celast.NavigableExpr) bool {
		return e.Kind() == celast.IdentKind && (e.AsIdent() == "commands" || e.AsIdent() == "command_error")
	})) > 0
}

// budget is one call's time budget; its context is made at first need.
type budget struct {
	deadline time.Time
	ctx      context.Context
	cancel   context.CancelFunc
}

func (b *budget) context() context.Context {
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithDeadline(context.Background(), b.deadline)
	}
	return b.ctx
}

func (b *budget) stop() {
	if b.cancel != nil {
		b.cancel()
	}
}

// Result is the decision for one call.
type Result = orgpolicy.Result

// Decide runs the rules in order: the first that is true decides; a rule
// that fails (a missing field, a bad value, over the cost or time limit)
// decides the policy's OnError, naming itself and the error; none: the
// default.
func (p *Program) Decide(in Input) Result {
	return p.decide(in, time.Now().Add(EvalBudget))
}

// errBudget is a rule not run because the call's time budget was spent
// by the rules before it.
var errBudget = fmt.Errorf("%w: the rules before this one spent the call's %v", context.DeadlineExceeded, EvalBudget)

// decide is Decide with the budget's deadline given (tests).
func (p *Program) decide(in Input, deadline time.Time) Result {
	// The budget runs from here; its context is made only for the first
	// rule that can be interrupted (folds).
	b := budget{deadline: deadline}
	defer b.stop()
	// The strings are given as CEL strings: the same values, boxed once
	// here rather than by every rule that reads them.
	vars := map[string]any{
		"tool": types.String(in.Tool), "input": in.ToolInput, "event": types.String(in.Event), "cwd": types.String(in.Cwd),
		"harness": types.String(in.Harness), "agent_id": types.String(in.AgentID), "session": types.String(in.Session),
		"permission_mode": types.String(in.Mode),
	}
	if vars["input"] == nil {
		vars["input"] = map[string]any{}
	}
	if p.shell {
		// Parsed within the budget: a rule starts only while it lasts.
		cmds, cerr := Commands(in.ToolInput)
		vars["commands"], vars["command_error"] = cmds, types.String(cerr)
	}
	// One activation for all the rules: a map would be wrapped again for
	// each one.
	act, err := cel.NewActivation(vars)
	if err != nil {
		return Result{Decision: p.Policy.OnError, Reason: "the call's fields could not be given to the rules", Error: orgpolicy.ErrRuleRuntime + ": " + err.Error()}
	}
	for i, prg := range p.rules {
		r := p.Policy.Rules[i]
		var out ref.Val
		// cel-go looks at the context only inside a comprehension, so a
		// rule without one would run whatever the budget left: each
		// rule starts only while the budget lasts (docs/policy.md §3:
		// all rules of one call together).
		if !time.Now().Before(b.deadline) {
			err = errBudget
		} else if p.folds[i] {
			out, _, err = prg.ContextEval(b.context(), act)
		} else {
			out, _, err = prg.Eval(act)
		}
		if err != nil {
			code := orgpolicy.ErrRuleRuntime
			msg := err.Error()
			if strings.Contains(msg, "cost limit") || errors.Is(err, context.DeadlineExceeded) || strings.Contains(msg, "interrupted") {
				code = orgpolicy.ErrRuleCost
			}
			return Result{Decision: p.Policy.OnError, Rule: r.Name, Reason: fmt.Sprintf("policy rule %s could not be evaluated (%s); the policy decides %s on such errors", r.Name, code, p.Policy.OnError),
				Error: code + ": " + oneLine(msg)}
		}
		if b, ok := out.Value().(bool); ok && b {
			return Result{Decision: r.Decision, Rule: r.Name, Reason: r.Reason}
		}
	}
	return Result{Decision: p.Policy.Default, Reason: p.Policy.DefaultReason}
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " | ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// FromJSON turns a strictjson value into what a CEL map or list holds.
// Numbers that are integers become int64, others float64; duplicate keys:
// the last wins, as in JavaScript.
func FromJSON(v *strictjson.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case strictjson.Null:
		return nil
	case strictjson.True:
		return true
	case strictjson.False:
		return false
	case strictjson.String:
		return v.Str
	case strictjson.Number:
		if n, err := strconv.ParseInt(v.Str, 10, 64); err == nil {
			return n
		}
		f, _ := strconv.ParseFloat(v.Str, 64)
		return f
	case strictjson.Array:
		out := make([]any, len(v.Items))
		for i := range v.Items {
			out[i] = FromJSON(&v.Items[i])
		}
		return out
	case strictjson.Object:
		out := make(map[string]any, len(v.Members))
		for i := range v.Members {
			out[v.Members[i].Key] = FromJSON(&v.Members[i].Value)
		}
		return out
	}
	return nil
}

func fail(code, detail string) *orgpolicy.Error { return &orgpolicy.Error{Code: code, Detail: detail} }
