// Package reviewtest makes records for tests: hook payloads in, a sealed
// record out, with the recorder's own parsing and the sealer's assembly,
// so tests need no files from outside the repository.
package reviewtest

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/record"
)

// Key is a fixed test key (never a real one).
var Key = ed25519.NewKeyFromSeed(make([]byte, 32))

// Session is a small Claude Code session with every shape a review shows:
// two turns, a command that succeeds and one that fails, an edit and a
// write, a sub-agent with two calls, a pre-event delivered twice, a call
// with no post-event, a post-event with no pre-event, and final messages.
var Session = []string{
	`{"session_id":"s1","cwd":"/w","hook_event_name":"SessionStart","source":"startup","model":"m"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"make the tests pass"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t-ok","tool_input":{"command":"go test ./..."}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t-ok","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"},"duration_ms":1500}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t-fail","tool_input":{"command":"make lint"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t-fail","tool_input":{"command":"make lint"},"error":"Exit code 2\nlint failed"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"t-edit","tool_input":{"file_path":"/w/a.go","old_string":"x","new_string":"y","replace_all":false}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"t-edit","tool_input":{"file_path":"/w/a.go","old_string":"x","new_string":"y","replace_all":false}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Edit","tool_use_id":"t-edit","tool_input":{"file_path":"/w/a.go","old_string":"x","new_string":"y","replace_all":false},"tool_response":{"filePath":"/w/a.go"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Task","tool_use_id":"t-task","tool_input":{"subagent_type":"Explore","prompt":"look"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"SubagentStart","agent_id":"ag1","agent_type":"Explore"}`,
	`{"session_id":"s1","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"}}`,
	`{"session_id":"s1","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t-read","tool_input":{"file_path":"/w/b.go"},"tool_response":"package b"}`,
	`{"session_id":"s1","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PreToolUse","tool_name":"Grep","tool_use_id":"t-grep","tool_input":{"pattern":"TODO"}}`,
	`{"session_id":"s1","cwd":"/w","agent_id":"ag1","agent_type":"Explore","hook_event_name":"PostToolUse","tool_name":"Grep","tool_use_id":"t-grep","tool_input":{"pattern":"TODO"},"tool_response":"none"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"SubagentStop","agent_id":"ag1","agent_type":"Explore","last_assistant_message":"found nothing"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Task","tool_use_id":"t-task","tool_input":{"subagent_type":"Explore","prompt":"look"},"tool_response":"found nothing"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"Stop","last_assistant_message":"done, lint fails"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"write the notes"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Write","tool_use_id":"t-write","tool_input":{"file_path":"/w/NOTES.md","content":"n"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Write","tool_use_id":"t-write","tool_input":{"file_path":"/w/NOTES.md","content":"n"},"tool_response":{"type":"create"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t-lost","tool_input":{"command":"sleep 999"}}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t-orphan","tool_input":{"file_path":"/w/c.go"},"tool_response":"c"}`,
	`{"session_id":"s1","cwd":"/w","hook_event_name":"Stop","last_assistant_message":"notes written"}`,
}

// Steps turns payloads into linked steps, one second apart from start.
func Steps(payloads []string, start time.Time) ([]byte, int, string, error) {
	return StepsAt(payloads, func(i int) time.Time { return start.Add(time.Duration(i) * time.Second) })
}

// StepsAt is Steps with each step's time given by at.
func StepsAt(payloads []string, at func(i int) time.Time) ([]byte, int, string, error) {
	out := []byte{'['}
	prev := ""
	for i, p := range payloads {
		ev, err := hookevent.Parse([]byte(p))
		if err != nil {
			return nil, 0, "", fmt.Errorf("payload %d: %v", i, err)
		}
		st := ev.Step
		st.At = at(i).UTC().Format(time.RFC3339Nano)
		canon, hash, err := chain.Link(st, int64(i), prev)
		if err != nil {
			return nil, 0, "", err
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, canon...)
		prev = hash
	}
	return append(out, ']'), len(payloads), prev, nil
}

// Start is the first step's time.
var Start = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// Record seals payloads into a record signed by Key.
func Record(payloads []string) ([]byte, error) { return RecordWith(payloads, Key) }

// RecordWith seals payloads into a record signed by priv.
func RecordWith(payloads []string, priv ed25519.PrivateKey) ([]byte, error) {
	start := Start
	steps, n, tip, err := Steps(payloads, start)
	if err != nil {
		return nil, err
	}
	end := start.Add(time.Duration(n-1) * time.Second).Format(time.RFC3339Nano)
	return record.Assemble(record.Session{ID: "s1", Agent: "claude-code (m)", Goal: "test", Cwd: "/w",
		StartedAt: start.Format(time.RFC3339Nano), EndedAt: end}, steps, n, tip, priv)
}

// RecordAt seals payloads recorded at the given times (one per payload,
// in order; a time earlier than the one before is raised to it).
func RecordAt(payloads []string, times []time.Time) ([]byte, error) {
	if len(times) != len(payloads) || len(times) == 0 {
		return nil, fmt.Errorf("%d payloads, %d times", len(payloads), len(times))
	}
	ts := make([]time.Time, len(times))
	for i, t := range times {
		if i > 0 && t.Before(ts[i-1]) {
			t = ts[i-1]
		}
		ts[i] = t
	}
	steps, n, tip, err := StepsAt(payloads, func(i int) time.Time { return ts[i] })
	if err != nil {
		return nil, err
	}
	f := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	return record.Assemble(record.Session{ID: "s1", Agent: "claude-code", Cwd: "/w",
		StartedAt: f(ts[0]), EndedAt: f(ts[n-1])}, steps, n, tip, Key)
}

// Repeat makes a session of n events by repeating calls of the session
// above with fresh toolUseIds (for benchmarks).
func Repeat(n int) []string {
	out := []string{Session[0], Session[1]}
	for i := 0; len(out) < n; i++ {
		id := fmt.Sprintf("t%d", i)
		out = append(out,
			`{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":"go test ./pkg`+id+`"}}`,
			`{"session_id":"s1","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":"go test ./pkg`+id+`"},"tool_response":{"stdout":"ok"},"duration_ms":12}`)
		if i%50 == 49 {
			out = append(out, `{"session_id":"s1","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"again"}`)
		}
	}
	return out[:n]
}
