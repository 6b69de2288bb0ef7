package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalExitStatus: eval's status answers "is this call allowed?" as
// grep does: 0 allow, 1 deny or ask, 2 no answer. A deny that exits 0
// lets a script that asks go on as if allowed.
func TestEvalExitStatus(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(policy, []byte(`{"version":"logbook/policy@0","rules":[
 {"name":"no-rm","when":"tool == 'Bash' && input.command.startsWith('rm')","decision":"deny"},
 {"name":"ask-curl","when":"tool == 'Bash' && input.command.startsWith('curl')","decision":"ask"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	payload := func(cmd string) string {
		return `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"` + cmd + `"}}`
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        int
	}{
		{"allow", payload("ls"), []string{"--unsigned", "--policy", policy}, 0},
		{"deny", payload("rm -rf /"), []string{"--unsigned", "--policy", policy}, 1},
		{"ask", payload("curl x"), []string{"--unsigned", "--policy", policy}, 1},
		{"unsigned policy read as signed", payload("ls"), []string{"--policy", policy}, 2},
		{"no policy file", payload("ls"), []string{"--unsigned", "--policy", filepath.Join(dir, "none.json")}, 2},
		{"payload not JSON", "{", []string{"--unsigned", "--policy", policy}, 2},
		{"no --policy", payload("ls"), nil, 2},
	} {
		var stdout, stderr bytes.Buffer
		got := run(append([]string{"eval"}, c.args...), strings.NewReader(c.stdin), &stdout, &stderr, func(string) string { return "" })
		if got != c.want {
			t.Errorf("%s: exit %d, want %d (stdout %q, stderr %q)", c.name, got, c.want, stdout.String(), stderr.String())
		}
	}
}
