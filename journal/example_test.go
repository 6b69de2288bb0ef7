package journal_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/journal"
)

func ExampleRecord() {
	dir, _ := os.MkdirTemp("", "logbook-example-")
	defer os.RemoveAll(dir)
	opt := journal.EventOptions{
		Now:      func() string { return "2026-01-02T03:04:05Z" },
		Recorder: "my-hook",
		Warn:     func(msg string) { log.Print(msg) },
	}
	payload := []byte(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t1","tool_input":{"file_path":"go.mod"}}`)
	ev, err := journal.Record(dir, payload, opt)
	if err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(filepath.Join(dir, ev.Session+".steps.jsonl"))
	fmt.Println(ev.Session, ev.Name, ev.Harness, err == nil)

	// A payload that cannot be recorded is refused by name.
	_, err = journal.Record(dir, []byte(`{"hook_event_name":"Stop"}`), opt)
	var refusal *journal.Refusal
	if errors.As(err, &refusal) {
		fmt.Println(refusal.Reason)
	}
	// Output:
	// s1 PreToolUse claude-code true
	// SESSION_ID_MISSING
}
