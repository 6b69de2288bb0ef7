package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionEndHookSealsAndResumes: the SessionEnd hook (logbook-seal
// --hook) records the event and seals; sealing again without new events
// gives the same bytes; a resumed session seals again over every step, and
// the first record's steps are a prefix of the second's.
func TestSessionEndHookSealsAndResumes(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	s := synthSession(t, "subagent")
	last := s.events[len(s.events)-1]
	if head(last).Event != "SessionEnd" {
		t.Fatalf("last event is %s, want SessionEnd", head(last).Event)
	}
	dir := filepath.Join(work, "sessions")
	for i, ev := range s.events[:len(s.events)-1] {
		recordStep(t, dir, s.at(i), ev)
	}
	hook := exec.Command(filepath.Join(bin, "logbook-seal"), "--hook", "--key", key)
	hook.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW="+s.at(len(s.events)-1))
	hook.Stdin = bytes.NewReader(last)
	var stdout, stderr bytes.Buffer
	hook.Stdout, hook.Stderr = &stdout, &stderr
	if err := hook.Run(); err != nil || stdout.Len() > 0 || stderr.Len() > 0 {
		t.Fatalf("seal hook: %v stdout=%q stderr=%q", err, stdout.String(), stderr.String())
	}
	id := head(last).Session
	first := filepath.Join(dir, id+".record.json")
	v := verify(t, first, pub)
	if !v.OK {
		t.Fatalf("hook-sealed record: %+v", v)
	}
	rec := readRecord(t, first)
	if ev := rec.Steps[len(rec.Steps)-1].Data["event"]; ev != "SessionEnd" && rec.Steps[len(rec.Steps)-2].Data["event"] != "SessionEnd" {
		t.Errorf("the SessionEnd event is not in the record")
	}

	again := filepath.Join(work, "again.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", again)
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Errorf("sealing the same steps twice gave different bytes")
	}

	// Resume: the same session id gets more events after the seal.
	more := []byte(`{"session_id":"` + id + `","hook_event_name":"SessionStart","source":"resume","cwd":"/home/dev/p"}`)
	recordStep(t, dir, "2026-12-01T00:00:00Z", more)
	recordStep(t, dir, "2026-12-01T00:00:01Z", []byte(`{"session_id":"`+id+`","hook_event_name":"UserPromptSubmit","prompt":"continue"}`))
	resumed := filepath.Join(work, "resumed.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", id, "--key", key, "--out", resumed)
	v2 := verify(t, resumed, pub)
	if !v2.OK || *v2.StepCount != *v.StepCount+2 {
		t.Fatalf("resumed seal: %+v (first had %d steps)", v2, *v.StepCount)
	}
	r2 := readRecord(t, resumed)
	for i := range rec.Steps {
		if rec.Steps[i].Summary != r2.Steps[i].Summary {
			t.Fatalf("step %d differs between the first and the resumed record", i)
		}
	}
}

// TestSecretsRedacted: secrets planted in commands, URLs, paths and
// prompts never reach a record; commands keep their shape with [REDACTED].
func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	secrets := []string{
		"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGH",
		"hunter2hunter2", "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx", "s3cr3tP4ss",
	}
	events := []string{
		`{"session_id":"sec","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":"use AKIAIOSFODNN7EXAMPLE and password hunter2hunter2"}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY && aws s3 ls"}}`,
		`{"session_id":"sec","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY && aws s3 ls"},"tool_response":{"stdout":"ok","stderr":""}}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t2","tool_input":{"command":"curl -H 'Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' https://api.github.com/user"}}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-ABCDEFGH claude -p hi"}}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"WebFetch","tool_use_id":"t4","tool_input":{"url":"https://admin:s3cr3tP4ss@db.example.com/x","prompt":"read"}}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"t5","tool_input":{"command":"mysql --password hunter2hunter2 -e 'select 1'"}}`,
		`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_use_id":"t6","tool_input":{"file_path":"/w/tokens/xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx.txt"}}`,
	}
	for i, e := range events {
		recordStep(t, dir, "2026-05-01T00:00:0"+string(rune('0'+i))+"Z", []byte(e))
	}
	out := filepath.Join(work, "sec.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", "sec", "--key", key, "--out", out)
	if v := verify(t, out, pub); !v.OK {
		t.Fatalf("%+v", v)
	}
	data, _ := os.ReadFile(out)
	for _, s := range secrets {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("secret %q survives in the record", s)
		}
	}
	if n := bytes.Count(data, []byte("[REDACTED]")); n < 6 {
		t.Errorf("only %d [REDACTED] markers; commands should keep their shape", n)
	}
	if !bytes.Contains(data, []byte("aws s3 ls")) {
		t.Errorf("redaction removed more than the secret")
	}
}

// TestRecordStepFailures: bad input never blocks the agent (exit 0, nothing
// on stdout, a message on stderr and in errors.log), except --fail-closed
// on PreToolUse (exit 2).
func TestRecordStepFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct {
		name, payload string
		args          []string
		wantExit      int
		wantMsg       string
	}{
		{"empty stdin", "", nil, 0, "not JSON"},
		{"not JSON", "hello", nil, 0, "not JSON"},
		{"array", "[1,2]", nil, 0, "not a JSON object"},
		{"no session", `{"hook_event_name":"Stop"}`, nil, 0, "no session_id"},
		{"path traversal", `{"session_id":"../../etc/passwd","hook_event_name":"PreToolUse"}`, nil, 0, "session id"},
		{"slash", `{"session_id":"a/b","hook_event_name":"Stop"}`, nil, 0, "session id"},
		{"too long", `{"session_id":"` + strings.Repeat("a", 4000) + `","hook_event_name":"Stop"}`, nil, 0, "session id"},
		{"fail-closed PreToolUse", `{"session_id":"../x","hook_event_name":"PreToolUse"}`, []string{"--fail-closed"}, 2, "session id"},
		{"fail-closed Stop", `{"session_id":"../x","hook_event_name":"Stop"}`, []string{"--fail-closed"}, 0, "session id"},
		{"fail-closed cut-off payload", `{"session_id":"s","hook_event_name":"PreTo`, []string{"--fail-closed"}, 2, "not JSON"},
		{"fail-closed empty stdin", ``, []string{"--fail-closed"}, 2, "not JSON"},
	}
	for _, c := range cases {
		cmd := exec.Command(filepath.Join(bin, "record-step"), c.args...)
		cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir)
		cmd.Stdin = strings.NewReader(c.payload)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != c.wantExit || stdout.Len() > 0 || !strings.Contains(stderr.String(), c.wantMsg) {
			t.Errorf("%s: exit %d stdout %q stderr %q", c.name, code, stdout.String(), stderr.String())
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, "errors.log"))
	if err != nil || bytes.Count(log, []byte("\n")) != len(cases) {
		t.Errorf("errors.log should hold one line per failure: %q (%v)", log, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.Contains(e.Name(), "passwd") || e.Name() == "x.steps.jsonl" {
			t.Errorf("a refused session id touched a path: %s", e.Name())
		}
	}
	// A UTF-8 BOM before the payload is stripped, not an error.
	if e := recordStep(t, dir, "2026-01-01T00:00:00Z", []byte("\xEF\xBB\xBF{\"session_id\":\"bom\",\"hook_event_name\":\"Stop\"}")); e != "" {
		t.Errorf("BOM payload: %q", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "bom.steps.jsonl")); err != nil {
		t.Errorf("BOM payload not recorded: %v", err)
	}
}
