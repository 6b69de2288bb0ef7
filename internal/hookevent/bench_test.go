package hookevent

import (
	"strings"
	"testing"
)

// benchPayload is e2e's typical PreToolUse event (about 1 KB).
var benchPayload = []byte(`{"session_id":"bench","transcript_path":"/home/dev/.claude/projects/-home-dev-p/bench.jsonl","cwd":"/home/dev/p",` +
	`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV",` +
	`"tool_input":{"file_path":"/home/dev/p/internal/server/handler.go","old_string":"` + strings.Repeat("x", 400) +
	`","new_string":"` + strings.Repeat("y", 400) + `"}}`)

// BenchmarkParse: one event's parsing, digests and redaction, in process:
// the part of record-step's work that reading every dialect could slow.
func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchPayload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(benchPayload); err != nil {
			b.Fatal(err)
		}
	}
}
