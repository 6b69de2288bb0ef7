package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCodexEndsSealed: Codex sends SessionEnd after the Stop that seals a
// turn, and on Ctrl-C an Interrupt with no Stop at all. Through the hooks
// install writes, each sequence leaves a sealed record whose last event
// is the one that ended it: SessionEnd is in the record, and an
// interrupted session has one, naming the interruption and the call it
// left open.
func TestCodexEndsSealed(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	_, pub := newKey(t, work, "signing")
	keyPEM := string(readFile(t, filepath.Join(work, "signing.key")))
	head := func(sid, event string, extra string) []byte {
		return []byte(`{"session_id":"` + sid + `","turn_id":"1","transcript_path":null,"cwd":"/home/dev/p","hook_event_name":"` + event + `","model":"gpt-5.1-codex","permission_mode":"default"` + extra + `}`)
	}
	call := `,"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"sleep 100"}`
	for _, c := range []struct {
		name   string
		events []string
		extra  []string
		last   string
		open   int
	}{
		{"session end after stop", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"},
			[]string{`,"source":"startup"`, `,"prompt":"go"`, call, call + `,"tool_response":"done"`, `,"stop_hook_active":false,"last_assistant_message":"Done."`, `,"reason":"other"`}, "SessionEnd", 0},
		{"interrupted turn", []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "Interrupt"},
			[]string{`,"source":"startup"`, `,"prompt":"go"`, call, ``}, "Interrupt", 1},
	} {
		project := filepath.Join(work, fmt.Sprintf("p-%d", len(c.events)))
		if err := os.MkdirAll(filepath.Join(project, ".logbook", "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, prog := range []string{"record-step", "logbook-seal"} {
			writeExe(filepath.Join(project, ".logbook", "bin", prog), readFile(t, filepath.Join(bin, prog)))
		}
		cmds := installedCommands(t, "codex", project)
		sid := "0199c0de-5a11-7e57-8d0c-00000000e" + fmt.Sprint(len(c.events))
		for i, ev := range c.events {
			cmdline, ok := cmds[ev]
			if !ok {
				t.Fatalf("%s: install does not wire %s", c.name, ev)
			}
			cmd := exec.Command("sh", "-c", cmdline)
			cmd.Dir = project
			cmd.Env = hookEnv(project, fmt.Sprintf("2026-05-01T10:00:%02dZ", i), keyPEM)
			cmd.Stdin = bytes.NewReader(head(sid, ev, c.extra[i]))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			// Codex reads an Interrupt hook's stdout as JSON: nothing
			// else may be printed there.
			if err := cmd.Run(); err != nil || stdout.Len() > 0 || stderr.Len() > 0 {
				t.Fatalf("%s: %s: %v stdout=%q stderr=%q", c.name, ev, err, stdout.String(), stderr.String())
			}
		}
		rec := filepath.Join(project, ".logbook", sid+".record.json")
		if _, err := os.Stat(rec); err != nil {
			t.Fatalf("%s: no sealed record: %v", c.name, err)
		}
		v := verify(t, rec, pub)
		if !v.OK {
			t.Fatalf("%s: %+v", c.name, v)
		}
		got := readRecord(t, rec)
		var events []string
		for _, s := range got.Steps {
			if e, _ := s.Data["event"].(string); e != "" {
				events = append(events, e)
			}
		}
		found := false
		for _, e := range events {
			found = found || e == c.last
		}
		if !found {
			t.Errorf("%s: the sealed record has no %s step: %v", c.name, c.last, events)
		}
		if v.Gaps != nil && v.Gaps.UnfinishedToolCalls != c.open {
			t.Errorf("%s: %d unfinished calls, want %d", c.name, v.Gaps.UnfinishedToolCalls, c.open)
		}
		t.Logf("%s: %d steps: %v", c.name, len(got.Steps), events)
	}
}
