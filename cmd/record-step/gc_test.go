package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// TestSmallEventGC is the deterministic guard against the regression in
// which a soft memory limit near the runtime's own 4 MiB made every small
// event run a dozen or more garbage collections: the real binary, run with
// GODEBUG=gctrace=1, may print at most one "gc " line per small event,
// whether it starts the session (and hashes its own executable) or not.
func TestSmallEventGC(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "record-step")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	small := `{"session_id":"s1","hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`
	cases := []struct{ name, payload string }{
		{"first event of a session", small},
		{"a later event", strings.Replace(small, `"t1"`, `"t2"`, 1)},
		{"100 KB of numbers (a large-ish body)", `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"seq"},"tool_response":[` + strings.Repeat("1,", 50<<10) + `1]}`},
	}
	if p, ok := corpora.Optional(t, "samples/hooks/claude-code/post-tool-use-todowrite.json", "the real 2.4 KB TodoWrite payload case (the synthesized cases still run)"); ok {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, payload string }{"the 2.4 KB real TodoWrite sample", string(b)})
	}
	dir := t.TempDir()
	var report []string
	for _, c := range cases {
		cmd := exec.Command(exe, "--dir", dir)
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "GOGC=", "GOMEMLIMIT=")
		cmd.Stdin = strings.NewReader(c.payload)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr.String())
		}
		gcs := 0
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "gc ") {
				gcs++
			} else if strings.TrimSpace(l) != "" {
				t.Errorf("%s: unexpected stderr line %q", c.name, l)
			}
		}
		limit := 1
		if strings.HasPrefix(c.name, "100 KB") {
			limit = 8 // it was 478 under the old limit
		}
		if gcs > limit {
			t.Errorf("%s (%d bytes): %d garbage collections, want at most %d", c.name, len(c.payload), gcs, limit)
		}
		report = append(report, fmt.Sprintf("%s: %d", c.name, gcs))
	}
	testreport.Line(t, "record-step GC guard (GODEBUG=gctrace=1 gc lines per event): "+strings.Join(report, "; "))
}
