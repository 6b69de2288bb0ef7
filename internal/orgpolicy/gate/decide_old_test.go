package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// oldDecide is Decide as it was at 5637f67: every rule under the budget's
// context, the call's strings handed to CEL as Go strings.
func oldDecide(p *Program, in Input) (out []string) {
	ctx, cancel := context.WithTimeout(context.Background(), EvalBudget)
	defer cancel()
	vars := map[string]any{
		"tool": in.Tool, "input": in.ToolInput, "event": in.Event, "cwd": in.Cwd,
		"harness": in.Harness, "agent_id": in.AgentID, "session": in.Session, "permission_mode": in.Mode,
	}
	if vars["input"] == nil {
		vars["input"] = map[string]any{}
	}
	for _, prg := range p.rules {
		v, _, err := prg.ContextEval(ctx, vars)
		if err != nil {
			out = append(out, "err:"+classify(err.Error()))
		} else {
			out = append(out, fmt.Sprint(v.Value()))
		}
	}
	return out
}

func classify(msg string) string {
	if strings.Contains(msg, "cost limit") || strings.Contains(msg, "interrupted") || strings.Contains(msg, "deadline") {
		return "cost"
	}
	return "runtime"
}

// TestDecideMatchesContextEval: per rule (each alone as a one-rule policy,
// so every rule's own result is compared), the new Decide's decision
// equals the old evaluation's.
func TestDecideMatchesContextEval(t *testing.T) {
	t.Parallel()
	rules := []string{
		`tool == 'Bash'`,
		`tool.startsWith('Ba') && input.command.contains('rm')`,
		`input.command.matches(r'rm\s+-rf')`,
		`input.command.matches(tool)`,
		`[input.command].exists(c, c.contains('rm'))`,
		`(tool == 'x' || [1,2,3].all(i, i > 0)) && event == 'PreToolUse'`,
		`input.command.split(' ').exists(w, w == 'rm')`,
		`input.command.lowerAscii().replace('rm', 'RM').contains('RM')`,
		`input.command.replace('a', 'aaaaaaaa').size() > 10`,
		`input.command.split('').size() > 3`,
		`'%s-%s'.format([tool, event]) == 'Bash-PreToolUse'`,
		`input.command.indexOf('rm') >= 0`,
		`input.command.reverse().startsWith('f')`,
		`strings.quote(input.command).size() > 0`,
		`cwd == '' && harness == '' && agent_id == '' && session == '' && permission_mode == ''`,
		`has(input.items) && input.items.exists(x, x == 'y')`,
		`input.command + tool == input.command + 'Bash'`,
		`tool in ['Bash', 'Read'] && {'Bash': 1}[tool] == 1`,
		`type(tool) == string && type(input) == map`,
		`input.command.substring(1, 3) == 'm '`,
		`input.n > 5`,
		`input.command.size() > 1000000`,
		`input.command.matches('(a*)*b')`,
		`input.command.contains(input.command)`,
		`input.command.split(' ').map(w, w + w).filter(w, w.size() > 2).size() > 0`,
	}
	big := strings.Repeat("rm -rf a ", 256<<10/9) // 10 MB: the same decisions, 13 s
	inputs := []Input{
		{Tool: "Bash", Event: "PreToolUse", ToolInput: map[string]any{"command": "rm -rf /"}},
		{Tool: "Bash", Event: "PreToolUse", ToolInput: map[string]any{"command": "ls", "items": []any{"y"}, "n": int64(7)}},
		{Tool: "Read", Event: "PostToolUse", ToolInput: map[string]any{"command": "\xff\xfe bad utf-8 rm"}},
		{Tool: "Bash", Event: "PreToolUse", ToolInput: nil},
		{Tool: "Bash", Event: "PreToolUse", ToolInput: map[string]any{"command": big}},
	}
	for i, r := range rules {
		text, _ := json.Marshal(map[string]any{"version": "logbook/policy@0", "onError": "deny",
			"rules": []any{map[string]any{"name": fmt.Sprintf("r%d", i), "when": r, "decision": "deny"}}})
		p, err := orgpolicy.ParseText(text)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		prog, err := Compile(p)
		if err != nil {
			t.Logf("rule %q does not compile: %v", r, err)
			continue
		}
		for j, in := range inputs {
			start := time.Now()
			old := oldDecide(prog, in)[0]
			t1 := time.Since(start)
			start = time.Now()
			res := prog.Decide(in)
			t2 := time.Since(start)
			var got string
			switch {
			case res.Error != "":
				got = "err:" + classify(res.Error)
			case res.Decision == orgpolicy.Deny:
				got = "true"
			default:
				got = "false"
			}
			if got != old {
				t.Errorf("rule %q input %d: new %s (%+v), old %s", r, j, got, res, old)
			}
			if t1 > 200*time.Millisecond || t2 > 200*time.Millisecond {
				t.Logf("rule %q input %d: old %v new %v (%s)", r, j, t1, t2, got)
			}
		}
	}
}
