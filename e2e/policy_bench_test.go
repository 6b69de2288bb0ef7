package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// fiftyRules is a 50-rule policy: 48 rules over Bash commands (a regexp
// each, none matching the benchmark's command, so every rule runs) and the
// two of orgPolicy.
func fiftyRules() string {
	type rule struct {
		Name     string `json:"name"`
		When     string `json:"when"`
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	var rules []rule
	for i := range 48 {
		rules = append(rules, rule{fmt.Sprintf("forbidden-%02d", i), fmt.Sprintf(`tool == 'Bash' && input.command.matches(r'forbidden%02d\s+--now')`, i), "deny", "not allowed"})
	}
	rules = append(rules,
		rule{"no-rm-rf", `tool == 'Bash' && input.command.matches(r'rm\s+-[a-zA-Z]*r[a-zA-Z]*f')`, "deny", "no"},
		rule{"no-dotenv", `has(input.file_path) && input.file_path.endsWith('.env')`, "deny", "no"})
	b, _ := json.Marshal(map[string]any{"version": "logbook/policy@0", "name": "fifty", "rules": rules})
	return string(b)
}

// BenchmarkPolicyGate runs, side by side in one run, the PreToolUse hook
// process as a harness runs it: record-step without a policy; record-step
// --policy with a 50-rule policy (which hands the call to logbook-policy
// hook: CEL is not linked into record-step), its checked rules in the
// cache; logbook-policy hook run directly (what record-step execs); and
// record-step --policy with no cache (every rule parsed and checked).
// Target: the cached gated hook ≤ 1.5× record-step without a policy.
// Compare with benchstat; cpu-ms/op is steadier than the clock on a
// shared machine.
func BenchmarkPolicyGate(b *testing.B) {
	dir := b.TempDir()
	signed, pub, _ := signedPolicy(b, dir, fiftyRules())
	payload := []byte(`{"session_id":"bench","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_b","tool_input":{"command":"go test ./internal/orgpolicy -run TestDecide -count=1"}}`)
	data, cache := filepath.Join(dir, "data"), filepath.Join(dir, "cache")
	gate := []string{"--policy", signed, "--policy-key", pub}
	cases := []struct {
		name  string
		argv  []string
		fresh bool // no cache
	}{
		{"record-step", []string{filepath.Join(bin, "record-step")}, false},
		{"record-step-policy50", append([]string{filepath.Join(bin, "record-step")}, gate...), false},
		{"logbook-policy-hook50", append([]string{filepath.Join(bin, "logbook-policy"), "hook"}, gate...), false},
		{"record-step-policy50-nocache", append([]string{filepath.Join(bin, "record-step")}, gate...), true},
	}
	runOne := func(b *testing.B, argv []string, fresh bool) time.Duration {
		if fresh {
			os.RemoveAll(cache)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+data, "LOGBOOK_CACHE_DIR="+cache)
		cmd.Stdin = bytes.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("%v %s", err, out)
		}
		return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	runOne(b, cases[1].argv, false) // the session exists and the cache is filled
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var cpu time.Duration
			for range b.N {
				cpu += runOne(b, c.argv, c.fresh)
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkPolicyServerLatency: 16 clients pace 1,000 PreToolUse events/s
// for two seconds at logbook-server, without a policy and with the
// 50-rule one (every rule evaluated: none matches), side by side; p50
// and p99 of each whole request. Target: gated p99 ≤ 1 ms.
func BenchmarkPolicyServerLatency(b *testing.B) {
	dir := b.TempDir()
	signed, pub, _ := signedPolicy(b, dir, fiftyRules())
	for _, c := range []struct {
		name  string
		extra []string
	}{{"plain", nil}, {"policy50", []string{"--policy", signed, "--policy-key", pub}}} {
		b.Run(c.name, func(b *testing.B) {
			d := b.TempDir()
			s := startServer(b, freePort(b), filepath.Join(d, "data"), newServerKey(b, d), nil, c.extra...)
			pacedLatency(b, s.url, func(it, c, i int) []byte {
				return []byte(fmt.Sprintf(`{"session_id":"lat-%d-%02d","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"toolu_%06d","tool_input":{"command":"echo %d"}}`, it, c, i, i))
			})
		})
	}
}
