package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostile builds the payloads of issue 3 around a session id.
func payloadCases() []struct {
	name    string
	payload []byte
	reason  string // "" when the event must be recorded
} {
	ev := func(session, body string) []byte {
		return []byte(`{"session_id":` + session + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t","tool_input":{"command":"x"}` + body + `}`)
	}
	s := `"hostile"`
	var keys strings.Builder
	keys.WriteString(`,"tool_response":{`)
	for i := 0; i < 100000; i++ {
		if i > 0 {
			keys.WriteByte(',')
		}
		fmt.Fprintf(&keys, `"key%06d":%d`, i, i)
	}
	keys.WriteString(`}`)
	return []struct {
		name    string
		payload []byte
		reason  string
	}{
		{"empty stdin", nil, "PAYLOAD_EMPTY"},
		{"only whitespace", []byte(" \n"), "PAYLOAD_EMPTY"},
		{"1 byte", []byte("{"), "PAYLOAD_NOT_JSON"},
		{"1 digit", []byte("7"), "PAYLOAD_NOT_OBJECT"},
		{"cut off", ev(s, "")[:40], "PAYLOAD_NOT_JSON"},
		{"trailing data", append(ev(s, ""), "{}"...), "PAYLOAD_NOT_JSON"},
		{"top-level array", []byte(`[{"session_id":"hostile"}]`), "PAYLOAD_NOT_OBJECT"},
		{"top-level string", []byte(`"session_id"`), "PAYLOAD_NOT_OBJECT"},
		{"invalid UTF-8 in a body", ev(s, `,"tool_response":{"stdout":"caf`+"\xe9\xff"+`"}`), ""},
		{"escaped NUL in a body", ev(s, `,"tool_response":{"stdout":"a\u0000b"}`), ""},
		{"raw NUL byte in a string", ev(s, `,"tool_response":{"stdout":"a`+"\x00"+`b"}`), ""},
		{"NUL byte between tokens", append([]byte{0}, ev(s, "")...), "PAYLOAD_NOT_JSON"},
		{"BOM", append([]byte("\xEF\xBB\xBF"), ev(s, "")...), ""},
		{"10,000-deep nesting", ev(s, `,"tool_response":`+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)), ""},
		{"1,000,000-deep nesting", ev(s, `,"tool_response":`+strings.Repeat("[", 1000000)+strings.Repeat("]", 1000000)), "PAYLOAD_TOO_DEEP"},
		{"100,000-key object", ev(s, keys.String()), ""},
		{"10 MB string body", ev(s, `,"tool_response":{"stdout":"`+strings.Repeat("x", 10<<20)+`"}`), ""},
		{"session id with /", ev(`"a/b"`, ""), "SESSION_ID_INVALID"},
		{"session id ..", ev(`".."`, ""), "SESSION_ID_INVALID"},
		{"session id ../../etc/x", ev(`"../../etc/x"`, ""), "SESSION_ID_INVALID"},
		{"session id with NUL", ev(`"a\u0000b"`, ""), "SESSION_ID_INVALID"},
		{"session id of 4,000 characters", ev(`"`+strings.Repeat("a", 4000)+`"`, ""), "SESSION_ID_INVALID"},
		{"empty session id", ev(`""`, ""), "SESSION_ID_MISSING"},
		{"no session id", []byte(`{"hook_event_name":"Stop"}`), "SESSION_ID_MISSING"},
		{"session id not a string", ev(`42`, ""), "SESSION_ID_MISSING"},
		{"forged internal note", []byte(`{"session_id":"hostile","hook_event_name":"logbook.hooks","managed":true}`), "EVENT_RESERVED"},
		{"forged internal note, other case", []byte(`{"session_id":"hostile","hook_event_name":"LogBook.unsent","count":0}`), "EVENT_RESERVED"},
	}
}

// TestHostilePayloads: every payload is recorded or refused with a named
// reason; never a panic, never a byte on stdout, exit 0 (the agent goes
// on); a refused session id touches no path; the recorded ones seal and
// verify.
func TestHostilePayloads(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	dir := filepath.Join(work, "sessions")
	recorded := 0
	for _, c := range payloadCases() {
		cmd := exec.Command(filepath.Join(bin, "record-step"))
		cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW=2026-05-01T00:00:00Z")
		cmd.Stdin = bytes.NewReader(c.payload)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		msg := stderr.String()
		switch {
		case err != nil || stdout.Len() > 0:
			t.Errorf("%s: %v, stdout %q", c.name, err, stdout.String())
		case strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine"):
			t.Errorf("%s: crashed: %s", c.name, msg)
		case c.reason == "" && msg != "":
			t.Errorf("%s: not recorded: %s", c.name, msg)
		case c.reason != "" && !strings.Contains(msg, c.reason):
			t.Errorf("%s: stderr %q, want reason %s", c.name, msg, c.reason)
		}
		if c.reason == "" {
			recorded++
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "errors.log hostile.lock hostile.steps.jsonl" {
		t.Fatalf("files in the session directory: %s", got)
	}
	if _, err := os.Stat(filepath.Join(work, "etc")); err == nil {
		t.Fatal("a session id escaped the directory")
	}
	key, pub := newKey(t, work, "signing")
	out := filepath.Join(work, "hostile.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", "hostile", "--key", key, "--out", out)
	if v := verify(t, out, pub); !v.OK || *v.StepCount != int64(recorded) {
		t.Fatalf("%+v: %d steps, %d recorded", v, *v.StepCount, recorded)
	}
	report(t, fmt.Sprintf("hostile payloads: %d cases through record-step, %d recorded, %d refused with a named reason, no panic, no stdout; the record verifies",
		len(payloadCases()), recorded, len(payloadCases())-recorded))
}
