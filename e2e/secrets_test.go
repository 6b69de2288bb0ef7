package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// secretCases reads testdata/redact/secrets.txt: INPUT<TAB>SECRET...
func secretCases(t *testing.T) (inputs []string, secrets []string) {
	f, err := os.Open("../testdata/redact/secrets.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		in := unescapeCorpus(parts[0])
		inputs = append(inputs, in)
		for _, s := range parts[1:] {
			if !seen[s] {
				seen[s] = true
				secrets = append(secrets, s)
			}
		}
	}
	return inputs, secrets
}

// TestSecretCorpusNeverInRecord plants every case of the secret corpus in
// a command, a file path, a prompt, a final message, a tool response and
// the clear-text metadata of several tools (descriptions, URLs, patterns,
// MCP arguments, notification text), records them through record-step,
// seals, and checks that no secret survives anywhere in the record.
func TestSecretCorpusNeverInRecord(t *testing.T) {
	t.Parallel()
	inputs, secrets := secretCases(t)
	if len(secrets) < 40 {
		t.Fatalf("only %d distinct secrets in the corpus", len(secrets))
	}
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var events []string
	add := func(format string, a ...any) { events = append(events, fmt.Sprintf(format, a...)) }
	add(`{"session_id":"sec","hook_event_name":"SessionStart","cwd":"/w","source":"startup","model":"claude-x"}`)
	for i, in := range inputs {
		// One tool input carries the secret in every clear-text field a
		// step keeps (command, path, pattern, URL), and in others it does
		// not keep (description, token).
		input := fmt.Sprintf(`{"command":%s,"file_path":%s,"pattern":%s,"url":%s,"description":%s,"token":%s}`,
			q(in), q("/w/notes/"+in), q(in), q("https://example.com/search?q="+in), q(in), q(in))
		add(`{"session_id":"sec","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":%s}`, q(in))
		add(`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"mcp__deploy__run","tool_use_id":"t%d","tool_input":%s}`, i, input)
		add(`{"session_id":"sec","hook_event_name":"PostToolUse","cwd":"/w","tool_name":"mcp__deploy__run","tool_use_id":"t%d","tool_input":%s,"tool_response":{"stdout":%s}}`, i, input, q(in))
		add(`{"session_id":"sec","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Write","tool_use_id":"w%d","tool_input":{"file_path":%s,"content":%s}}`, i, q("/tmp/"+in+".env"), q(in))
		add(`{"session_id":"sec","hook_event_name":"Notification","cwd":"/w","message":%s,"notification_type":"permission_prompt"}`, q(in))
		add(`{"session_id":"sec","hook_event_name":"Stop","cwd":"/w","last_assistant_message":%s}`, q(in))
	}
	// Four hooks at a time, as a harness runs them.
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(events); i += 4 {
				if msg := recordStep(t, dir, fmt.Sprintf("2026-05-01T00:%02d:%02dZ", i/60%60, i%60), []byte(events[i])); msg != "" {
					t.Errorf("event %d: %s", i, msg)
				}
			}
		}(w)
	}
	wg.Wait()
	out := filepath.Join(work, "sec.json")
	run(t, nil, "logbook-seal", "--dir", dir, "--session", "sec", "--key", key, "--out", out, "--goal", inputs[0])
	if v := verify(t, out, pub); !v.OK {
		t.Fatalf("%+v", v)
	}
	data, _ := os.ReadFile(out)
	survived := 0
	for _, s := range secrets {
		esc, _ := json.Marshal(s)
		if bytes.Contains(data, []byte(s)) || bytes.Contains(data, esc[1:len(esc)-1]) {
			survived++
			t.Errorf("secret %q survives in the record", s)
		}
	}
	line := fmt.Sprintf("redaction: %d secrets from %d corpus cases planted in %d events (commands, paths, prompts, tool metadata): %d survive in the record", len(secrets), len(inputs), len(events), survived)
	t.Log(line)
	report(t, line)
}

// unescapeCorpus reads the corpus escapes: \n is a newline, \\ one
// backslash, any other backslash itself.
func unescapeCorpus(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == '\\') {
			if s[i+1] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte('\\')
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
