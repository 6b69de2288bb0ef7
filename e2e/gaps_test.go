package e2e

import (
	"path/filepath"
	"testing"
)

// TestGapsReported: lost, repeated and orphan events are recorded as they
// came (nothing merged or dropped) and counted by logbook-verify --json.
func TestGapsReported(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	events := []string{
		// no SessionStart at all
		`{"session_id":"gaps","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"lost","tool_input":{"command":"sleep 999"}}`,
		`{"session_id":"gaps","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"twice","tool_input":{"command":"ls"}}`,
		`{"session_id":"gaps","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"twice","tool_input":{"command":"ls"}}`,
		`{"session_id":"gaps","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"twice","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"}}`,
		`{"session_id":"gaps","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"orphan","tool_input":{"file_path":"/w/a"},"tool_response":"x"}`,
		`{"session_id":"gaps","hook_event_name":"Stop","last_assistant_message":"done"}`,
	}
	for i, e := range events {
		recordStep(t, dir, "2026-05-01T00:00:0"+string(rune('0'+i))+"Z", []byte(e))
	}
	out := filepath.Join(work, "gaps.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", "gaps", "--key", key, "--out", out)
	v := verify(t, out, pub)
	if !v.OK || v.Gaps == nil {
		t.Fatalf("%+v", v)
	}
	g := *v.Gaps
	if g.UnfinishedToolCalls != 1 || g.DuplicatePreEvents != 1 || g.DuplicatePostEvents != 0 || g.PostWithoutPre != 1 || g.MissingSessionStart != 1 {
		t.Fatalf("gaps %+v", g)
	}
	// Every event is a step, plus the seal's note naming the unfinished call.
	if n := *v.StepCount; n != int64(len(events))+1 {
		t.Fatalf("%d steps for %d events", n, len(events))
	}
	// A refused record reports no gaps: its data is not worth counting.
	if v := verify(t, filepath.Join("..", "testdata", "records", "fail_CHAIN_BROKEN_edited_step.json")); v.Gaps != nil {
		t.Fatalf("gaps on a refused record: %+v", v)
	}
}
