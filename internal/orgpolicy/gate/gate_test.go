package gate

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

func decide(t *testing.T, policy string, payload []byte) orgpolicy.Result {
	t.Helper()
	p, err := orgpolicy.ParseText([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := hookevent.Parse(payload)
	if err != nil {
		t.Fatal(err)
	}
	return prog.Decide(InputOf(payload, ev))
}

func TestDecide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		payload       []byte
		decision      orgpolicy.Decision
		rule, errCode string
	}{
		{call("a", "PreToolUse", "Bash", `{"command":"rm -rf /"}`), orgpolicy.Deny, "no-rm-rf", ""},
		{call("a", "PreToolUse", "Bash", `{"command":"rm -fr x"}`), orgpolicy.Allow, "", ""}, // the rule says -r…f: first match, by the rule's own words
		{call("a", "PreToolUse", "Read", `{"file_path":"/p/.env"}`), orgpolicy.Deny, "no-dotenv", ""},
		{call("a", "PreToolUse", "Read", `{"file_path":"/p/notes.txt"}`), orgpolicy.Allow, "", ""},
		{call("a", "PreToolUse", "Bash", `{"command":"ls"}`), orgpolicy.Allow, "", ""},
		// Duplicate keys: the last wins, as in the harness's JSON.parse.
		{[]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf /"}}`), orgpolicy.Deny, "no-rm-rf", ""},
	} {
		r := decide(t, examplePolicy, c.payload)
		if r.Decision != c.decision || r.Rule != c.rule || !strings.HasPrefix(r.Error, c.errCode) {
			t.Errorf("%s: %+v, want %s %s", c.payload, r, c.decision, c.rule)
		}
	}
}

// TestRuleErrors: a rule that fails at run time, or goes over the cost
// limit, decides onError and names itself; it never hangs or panics.
func TestRuleErrors(t *testing.T) {
	t.Parallel()
	missing := `{"version":"logbook/policy@0","onError":"deny","rules":[{"name":"needs-path","when":"input.file_path.endsWith('.env')","decision":"deny"}]}`
	r := decide(t, missing, call("a", "PreToolUse", "Bash", `{"command":"ls"}`))
	if r.Decision != orgpolicy.Deny || r.Rule != "needs-path" || !strings.HasPrefix(r.Error, orgpolicy.ErrRuleRuntime+": ") {
		t.Errorf("missing field: %+v", r)
	}
	open := strings.Replace(missing, `"onError":"deny"`, `"onError":"allow"`, 1)
	if r := decide(t, open, call("a", "PreToolUse", "Bash", `{"command":"ls"}`)); r.Decision != orgpolicy.Allow || r.Error == "" {
		t.Errorf("onError allow: %+v", r)
	}
	items := make([]string, 3000)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	costly := `{"version":"logbook/policy@0","rules":[{"name":"quadratic","when":"has(input.items) && input.items.all(x, input.items.exists(y, y == x + 1) || x == 2999)","decision":"deny"}]}`
	start := time.Now()
	r = decide(t, costly, call("a", "PreToolUse", "Bash", `{"items":[`+strings.Join(items, ",")+`]}`))
	if r.Decision != orgpolicy.Deny || !strings.HasPrefix(r.Error, orgpolicy.ErrRuleCost+": ") {
		t.Errorf("over the cost limit: %+v", r)
	}
	if d := time.Since(start); d > EvalBudget+5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ when, want string }{
		{`tool == 'Bash' &&`, orgpolicy.ErrRuleSyntax},
		{`tool + 1`, orgpolicy.ErrRuleSyntax},                  // no such overload
		{`tool`, orgpolicy.ErrRuleSyntax},                      // a string, not a bool
		{`nosuchvar == 'x'`, orgpolicy.ErrRuleSyntax},          // undeclared
		{`tool.matches('(unclosed')`, orgpolicy.ErrRuleSyntax}, // a constant regexp that does not compile
	} {
		p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","rules":[{"name":"r","when":` + q(c.when) + `,"decision":"deny"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile(p)
		var e *orgpolicy.Error
		if err == nil || !asErr(err, &e) || e.Code != c.want {
			t.Errorf("%s: %v, want %s", c.when, err, c.want)
		}
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

func asErr(err error, e **orgpolicy.Error) bool {
	x, ok := err.(*orgpolicy.Error)
	*e = x
	return ok
}

// TestLoadFailsClosed: a policy that cannot be used decides every gated
// call OnLoadError, and the gate step says why, with no policy digest.
func TestLoadFailsClosed(t *testing.T) {
	t.Parallel()
	pub := policyKey.Public().(ed25519.PublicKey)
	file, _, err := orgpolicy.Sign([]byte(examplePolicy), policyKey)
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"version":"logbook/policy@0","rules":[{"name":"r","when":"tool ==","decision":"deny"}]}`
	badFile, _, err := orgpolicy.Sign([]byte(bad), policyKey)
	if err != nil {
		t.Fatal(err)
	}
	big := append([]byte(`{"policy":{"version":"logbook/policy@0","name":"`), bytes.Repeat([]byte("x"), 10<<20)...)
	big = append(big, `"}}`...)
	for _, c := range []struct {
		name string
		file []byte
		keys []ed25519.PublicKey
		code string
	}{
		{"other key", file, []ed25519.PublicKey{otherKey.Public().(ed25519.PublicKey)}, orgpolicy.ErrUntrusted},
		{"edited", bytes.Replace(file, []byte("no-dotenv"), []byte("no-dotenX"), 1), []ed25519.PublicKey{pub}, orgpolicy.ErrSignature},
		{"syntax error", badFile, []ed25519.PublicKey{pub}, orgpolicy.ErrRuleSyntax},
		{"10 MB", big, []ed25519.PublicKey{pub}, orgpolicy.ErrTooLarge},
		{"not JSON", []byte("{"), []ed25519.PublicKey{pub}, orgpolicy.ErrMalformed},
	} {
		g := Load(c.file, c.keys, orgpolicy.Deny, "")
		if g.LoadErr == nil || g.LoadErr.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, g.LoadErr, c.code)
			continue
		}
		ev, _ := hookevent.Parse(call("a", "PreToolUse", "Bash", `{"command":"ls"}`))
		v := g.Check(nil, ev)
		if v.Decision != orgpolicy.Deny || !v.Enforced || !strings.HasPrefix(v.Error, c.code) || v.Step.Data.Get("policy") != nil {
			t.Errorf("%s: %+v", c.name, v)
		}
	}
}

// TestCacheHit: the second compile of a policy reads the checked rules
// from the cache and decides the same; a damaged cache is ignored.
func TestCacheHit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, _ := orgpolicy.ParseText([]byte(examplePolicy))
	_, hit, err := CompileCached(p, dir)
	if err != nil || hit {
		t.Fatalf("first: hit %v err %v", hit, err)
	}
	prog, hit, err := CompileCached(p, dir)
	if err != nil || !hit {
		t.Fatalf("second: hit %v err %v", hit, err)
	}
	payload := call("a", "PreToolUse", "Bash", `{"command":"rm -rf /"}`)
	ev, _ := hookevent.Parse(payload)
	if r := prog.Decide(InputOf(payload, ev)); r.Rule != "no-rm-rf" {
		t.Errorf("from the cache: %+v", r)
	}
	file := filepath.Join(dir, p.Digest+".celcache")
	b, _ := os.ReadFile(file)
	b[len(b)/2] ^= 1
	os.WriteFile(file, b, 0o600)
	if _, hit, err := CompileCached(p, dir); err != nil || hit {
		t.Errorf("damaged cache: hit %v err %v", hit, err)
	}
}

// TestDocsExamplePolicy: the example of docs/policy.md §2, as written
// there, compiles and decides what its prose says: every spelling of a
// recursive force-remove and of a shell read of .env is denied (the
// parsed commands: through bash -c, a path, a backslash, quotes,
// wrappers), other commands are not, and a command that cannot be read is
// denied.
func TestDocsExamplePolicy(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "### Example\n\n```json\n")
	text, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/policy.md: no ```json block under ### Example")
	}
	bash := func(cmd string) string {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return string(b)
	}
	for _, c := range []struct {
		tool, input string
		decision    orgpolicy.Decision
		rule        string
	}{
		{"Bash", bash("rm -rf build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm -fr build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm -Rf build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm -r -f build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm -f -r build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm --recursive --force build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("rm --rec --force build"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("cd /tmp && rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("sudo rm -rf /"), orgpolicy.Deny, "no-rm-rf"},
		// The spellings issue 32 ran past the text rule.
		{"Bash", bash(`bash -c "rm -rf x"`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("/bin/rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash(`\rm -rf x`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("cat .env"), orgpolicy.Deny, "no-dotenv-shell"},
		// And their relatives.
		{"Bash", bash("sh -c 'rm -rf x'"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash(`zsh -c "cd / && rm -fr x"`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("bash -lc $'rm\\x20-rf x'"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("'rm' -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash(`r""m -r'f' x`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("{rm,-rf,x}"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("command rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("env FOO=1 rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("sudo -u root /usr/bin/rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("ls | xargs -0 rm -rf"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash(`find . -name x -exec rm -rf {} \;`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("timeout 5 nice -n 3 rm -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("echo $(rm -rf x)"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("(cd x; rm -rf y) && ls"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash(`eval "rm -rf x"`), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("bash <<'EOF'\nrm -rf x\nEOF"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("x=rm; $x -rf y"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("echo 'unclosed"), orgpolicy.Deny, "unreadable-command"},
		{"Bash", bash("less ./.env"), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", bash("head -n 5 config/.env"), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", bash("tail -f '.env'"), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", bash("cat < .env"), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", bash(`bash -c 'cat .e"nv"'`), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", bash("/bin/cat .env | grep KEY"), orgpolicy.Deny, "no-dotenv-shell"},
		{"run_shell_command", bash("cat .env"), orgpolicy.Deny, "no-dotenv-shell"},
		{"Bash", `{"command":["bash","-lc","rm -rf x"]}`, orgpolicy.Deny, "no-rm-rf"},
		// Not denied.
		{"Bash", bash("rm build/a.o"), orgpolicy.Allow, ""},
		{"Bash", bash("rm -r build"), orgpolicy.Allow, ""},
		{"Bash", bash("rm -f a.o"), orgpolicy.Allow, ""},
		{"Bash", bash("grep -rf pats ."), orgpolicy.Allow, ""},
		{"Bash", bash("ls -la"), orgpolicy.Allow, ""},
		{"Bash", bash("[ -r x -a -f y ] && echo ok"), orgpolicy.Allow, ""},
		{"Bash", bash("/bin/r[m] -rf x"), orgpolicy.Deny, "no-rm-rf"},
		{"Bash", bash("cat notes.txt .envrc"), orgpolicy.Allow, ""},
		{"Bash", bash(`echo "never rm -rf here"`), orgpolicy.Allow, ""},
		{"Read", `{"file_path":"/p/.env"}`, orgpolicy.Deny, "no-dotenv"},
		{"Read", `{"file_path":"/p/notes.txt"}`, orgpolicy.Allow, ""},
		{"Bash", bash("git push origin main"), orgpolicy.Ask, "push-needs-a-person"},
		{"Bash", bash("git -C repo push"), orgpolicy.Ask, "push-needs-a-person"},
	} {
		r := decide(t, text, call("a", "PreToolUse", c.tool, c.input))
		if r.Decision != c.decision || r.Rule != c.rule || r.Error != "" {
			t.Errorf("%s %s: %+v, want %s by %q", c.tool, c.input, r, c.decision, c.rule)
		}
	}
}

// TestOnlyFoldsGetTheBudgetContext: a rule with a comprehension (the
// only place cel-go checks the interrupt) runs under the time budget's
// context; a rule without one runs without (Decide's fast path), and a
// 50-rule call of such rules makes no context at all: deterministic
// allocation counts guard it.
func TestOnlyFoldsGetTheBudgetContext(t *testing.T) {
	t.Parallel()
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","rules":[
		{"name":"plain","when":"tool == 'Bash' && input.command.matches(r'rm\\s+-rf')","decision":"deny"},
		{"name":"fold","when":"has(input.items) && input.items.exists(x, x == 'y')","decision":"deny"},
		{"name":"map","when":"[1, 2].map(x, x * 2).size() == 3","decision":"deny"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, true}; !slices.Equal(prog.folds, want) {
		t.Errorf("folds %v, want %v", prog.folds, want)
	}
	if r := prog.Decide(Input{Tool: "Bash", ToolInput: map[string]any{"command": "ls", "items": []any{"y"}}}); r.Rule != "fold" {
		t.Errorf("the fold rule did not decide: %+v", r)
	}
}

// TestCheck50Allocs guards the gate's cost per call in a long-running
// recorder (BenchmarkCheck50's call), by allocations, which do not depend
// on the machine's load: 428 when written; 635 when each rule still ran
// under its own context and boxed the call's strings again.
func TestCheck50Allocs(t *testing.T) {
	// serial: testing.AllocsPerRun refuses a parallel test.
	prog, err := Compile(fifty(t))
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: prog.Policy}}
	payload := call("toolu_1", "PreToolUse", "Bash", `{"command":"go test ./... -run TestX -count=1","description":"run the tests"}`)
	ev, _ := hookevent.Parse(payload)
	if n := testing.AllocsPerRun(20, func() { g.Check(payload, ev) }); n > 460 {
		t.Errorf("%v allocations per 50-rule call, want at most 460", n)
	}
}

// TestBudgetSpentBeforeARule: once the call's time budget is spent, no
// further rule runs, with or without a comprehension (cel-go looks at the
// context only inside one): the call is decided onError, RULE_COST,
// naming the rule. Before, a rule without a comprehension ran whatever
// the budget left, so a policy of many slow string rules (lastIndexOf,
// quote, matches on a command of tens of MB, each under the cost limit)
// took many times EvalBudget. The deadline is given, not waited for.
func TestBudgetSpentBeforeARule(t *testing.T) {
	t.Parallel()
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","onError":"deny","rules":[
		{"name":"plain","when":"input.command.lastIndexOf('zz') > 0","decision":"deny"},
		{"name":"fold","when":"[1].exists(x, x == 2)","decision":"deny"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Tool: "Bash", ToolInput: map[string]any{"command": "ls"}}
	if r := prog.decide(in, time.Now().Add(time.Hour)); r.Decision != orgpolicy.Allow || r.Error != "" {
		t.Fatalf("within the budget: %+v", r)
	}
	r := prog.decide(in, time.Now().Add(-time.Millisecond))
	if r.Decision != orgpolicy.Deny || r.Rule != "plain" || !strings.HasPrefix(r.Error, orgpolicy.ErrRuleCost) {
		t.Errorf("budget spent: %+v, want deny by onError, rule plain, %s", r, orgpolicy.ErrRuleCost)
	}
}

// TestCommands: a rule on commands sees the parsed command line; one on
// command_error fails closed on what cannot be read (a broken quote, a
// command over shellcmd.MaxLen); a policy that names neither does not
// parse the command at all (its decisions and cost are what they were).
func TestCommands(t *testing.T) {
	t.Parallel()
	p, err := orgpolicy.ParseText([]byte(`{"version":"logbook/policy@0","rules":[
		{"name":"unreadable","when":"command_error != ''","decision":"deny"},
		{"name":"rm","when":"commands.exists(c, c.program == 'rm' && '-rf' in c.args)","decision":"deny"},
		{"name":"argv","when":"commands.exists(c, c.path == '/bin/sh' && c.args == ['-c', 'id'])","decision":"ask"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !prog.shell {
		t.Fatal("a policy naming commands does not parse them")
	}
	for _, c := range []struct {
		input any
		rule  string
	}{
		{map[string]any{"command": `bash -c "\rm -rf x"`}, "rm"},
		{map[string]any{"command": `echo "x`}, "unreadable"},
		{map[string]any{"command": strings.Repeat("x", 1<<20+1)}, "unreadable"},
		{map[string]any{"command": []any{"/bin/sh", "-c", "id"}}, "argv"},
		{map[string]any{"command": []any{"rm", 7}}, "unreadable"},
		{map[string]any{"command": "ls"}, ""},
		{map[string]any{"file_path": ".env"}, ""},
		{nil, ""},
	} {
		if r := prog.Decide(Input{Tool: "Bash", ToolInput: c.input}); r.Rule != c.rule || r.Error != "" {
			t.Errorf("%.80v: %+v, want rule %q", c.input, r, c.rule)
		}
	}
	// The budget spent before the rules run (here: given so): RULE_COST,
	// as for any policy.
	if r := prog.decide(Input{Tool: "Bash", ToolInput: map[string]any{"command": "ls"}}, time.Now().Add(-time.Millisecond)); !strings.HasPrefix(r.Error, orgpolicy.ErrRuleCost) {
		t.Errorf("budget spent: %+v, want %s", r, orgpolicy.ErrRuleCost)
	}
	old, err := Compile(fifty(t))
	if err != nil {
		t.Fatal(err)
	}
	if old.shell {
		t.Error("a policy that names neither commands nor command_error parses the command")
	}
}
