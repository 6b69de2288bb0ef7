package journal_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/journal"
)

func TestRecordRefusals(t *testing.T) {
	dir := t.TempDir()
	for payload, reason := range map[string]string{
		"":                           journal.PayloadEmpty,
		`{"session_id":`:             journal.PayloadNotJSON,
		`[1]`:                        journal.PayloadNotObject,
		`{"hook_event_name":"Stop"}`: journal.SessionMissing,
		`{"session_id":"../x","hook_event_name":"Stop"}`: journal.SessionInvalid,
	} {
		_, err := journal.Record(dir, []byte(payload), journal.EventOptions{})
		var r *journal.Refusal
		if !errors.As(err, &r) || r.Reason != reason {
			t.Errorf("%q: got %v, want %s", payload, err, reason)
		}
	}
}

// A redact.json that cannot be used records the step with its clear text
// withheld, and Warn says so, naming the event.
func TestRecordWarnsOnBadConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "redact.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []string
	payload := "\xEF\xBB\xBF" + `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"echo hunter2"}}`
	ev, err := journal.Record(dir, []byte(payload), journal.EventOptions{
		Now:  func() string { return "2026-01-02T03:04:05.000Z" },
		Warn: func(msg string) { warned = append(warned, msg) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "PreToolUse: recorded with clear text withheld") {
		t.Errorf("warnings %q", warned)
	}
	b, err := os.ReadFile(filepath.Join(dir, ev.Session+".steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2") || !strings.Contains(string(b), `"at":"2026-01-02T03:04:05.000Z"`) {
		t.Errorf("journal:\n%s", b)
	}
}
