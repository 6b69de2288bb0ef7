package gate

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/orgpolicy"
)

func fifty(b testing.TB) *orgpolicy.Policy {
	type rule struct {
		Name     string `json:"name"`
		When     string `json:"when"`
		Decision string `json:"decision"`
	}
	var rules []rule
	for i := range 50 {
		rules = append(rules, rule{fmt.Sprintf("r%02d", i), fmt.Sprintf(`tool == 'Bash' && input.command.matches(r'forbidden%02d\s+--now')`, i), "deny"})
	}
	text, _ := json.Marshal(map[string]any{"version": "logbook/policy@0", "rules": rules})
	p, err := orgpolicy.ParseText(text)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkCheck50 is the gate's own cost per call in a long-running
// recorder (logbook-server): reading the payload for the rules, running
// 50 rules (none matches, so all run) and building the gate step.
func BenchmarkCheck50(b *testing.B) {
	prog, err := Compile(fifty(b))
	if err != nil {
		b.Fatal(err)
	}
	g := &Gate{Program: prog, Signed: &orgpolicy.Signed{Policy: prog.Policy}}
	payload := call("toolu_1", "PreToolUse", "Bash", `{"command":"go test ./... -run TestX -count=1","description":"run the tests"}`)
	ev, _ := hookevent.Parse(payload)
	b.ReportAllocs()
	for b.Loop() {
		if v := g.Check(payload, ev); v.Decision != orgpolicy.Allow {
			b.Fatal(v)
		}
	}
}

// BenchmarkCompile50 and BenchmarkCached50: what a hook process pays to
// get the 50 rules ready, compiled from their text or read from the cache.
func BenchmarkCompile50(b *testing.B) {
	p := fifty(b)
	for b.Loop() {
		if _, err := Compile(p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCached50(b *testing.B) {
	p, dir := fifty(b), b.TempDir()
	if _, _, err := CompileCached(p, dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, hit, err := CompileCached(p, dir); err != nil || !hit {
			b.Fatal(hit, err)
		}
	}
}
