package hookevent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// FuzzParse: any stdin, in any dialect, either is refused with an error or becomes a step
// that links into a chain and passes the record's step shape check; never
// a panic.
func FuzzParse(f *testing.F) {
	for _, p := range synth.ClaudePayloads() {
		if len(p.JSON) < 32<<10 {
			f.Add(p.JSON)
		}
	}
	for _, name := range synth.QuirkNames() {
		f.Add(synth.Quirks()[name])
	}
	if dir, ok := corpora.Find("samples/hooks"); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil && len(b) < 32<<10 {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_input":{"a":[1e400,"\udc00"]}}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","duration_ms":9007199254740993}`))
	f.Add([]byte(`{"hookEventName":"post_tool_use","sessionId":"s","toolName":"run_terminal_command","toolResult":{"output":[104,105,256]}}`))
	f.Add([]byte(`{"conversation_id":"s","hook_event_name":"postToolUse","tool_input":"[1,{\"a\":\"\\udc00\"}]","tool_output":"{\"x\":1e400}"}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Update File: a\n*** Move to: b"}}`))
	for _, p := range dupPayloads { // repeated keys: the last value wins
		f.Add([]byte(p))
	}
	f.Add([]byte(`{"conversation_id":"s","hook_event_name":"postToolUse","tool_input":"{\"a\":1,\"a\":2,\"a\":3}","session_id":"t","session_id":"u"}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := Parse(payload)
		if err != nil {
			return
		}
		ev.Step.At = "2026-01-01T00:00:00Z"
		line, _, err := chain.Link(ev.Step, 0, "")
		if err != nil {
			t.Fatalf("step does not link: %v", err)
		}
		if d := record.CheckStep(line); d != "" {
			t.Fatalf("step fails the record shape: %s\n%s", d, line)
		}
	})
}
