package recorder

import (
	"bytes"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/journal"
)

var payload = []byte(`{"session_id":"bench","cwd":"/home/dev/p","permission_mode":"default","hook_event_name":"PreToolUse",` +
	`"tool_name":"Edit","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","tool_input":{"file_path":"/home/dev/p/a.go",` +
	`"old_string":"` + strings.Repeat("x", 400) + `","new_string":"` + strings.Repeat("y", 400) + `"}}`)

// TestRecord: one payload becomes one step in its session's file.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 3; i++ {
		if _, err := Record(dir, payload, "2026-01-01T00:00:00Z", "/w"); err != nil {
			t.Fatal(err)
		}
	}
	j, err := journal.Open(dir, "bench")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	h, steps, err := j.ReadAll(nil)
	if err != nil || steps.Count != 3 || h.Cwd != "/home/dev/p" || bytes.Contains(steps.JSON, []byte("xxxx")) {
		t.Fatalf("%v %+v %d", err, h, steps.Count)
	}
}

// BenchmarkRecord is record-step's own work for one event, in process:
// parse, digest, redact, lock, read the tail, append. The rest of a hook's
// time is starting the process.
func BenchmarkRecord(b *testing.B) {
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Record(dir, payload, "2026-01-01T00:00:00Z", "/w"); err != nil {
			b.Fatal(err)
		}
	}
}
