package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	logbook "github.com/logbook-project/logbook"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/testkit/secretcorpus"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
	"github.com/logbook-project/logbook/internal/wraprun"
)

// corpusEvent is one hook event planting one sample.
type corpusEvent struct {
	args    []string // record-step's flags besides --dir
	payload []byte
	sample  int // index into the planted secrets
}

// TestGitleaksCorpusNeverInRecord drives every true positive of gitleaks'
// default rules (the shared corpus; skipped in one line without it)
// through record-step, in process, planted where an agent's clear text
// carries secrets: a Bash command (a bare argument, a heredoc writing a
// config line, export NAME=, a URL ?token=, an Authorization: Bearer
// header), a Grep pattern, a WebFetch search URL (escaped and not), a
// prompt, a Write file_path, the command field of every harness dialect,
// and logbook-wrap's command line. Each session is sealed and verified;
// no sample may survive anywhere in a record or a journal: not whole, and
// not 12 bytes in a row of its random part.
func TestGitleaksCorpusNeverInRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of events")
	}
	c := secretcorpus.Load(t)
	work := t.TempDir()
	dir := filepath.Join(work, "sessions")

	var secrets []string
	type planted struct{ rule, placement string }
	var where []planted
	sessions := map[string][]corpusEvent{}
	counts := map[string]int{} // placement -> events
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	plant := func(session, placement string, args []string, payload string, needle, rule string) {
		secrets = append(secrets, needle)
		where = append(where, planted{rule, placement})
		sessions[session] = append(sessions[session], corpusEvent{args, []byte(payload), len(secrets) - 1})
		counts[placement]++
	}
	n := 0
	for _, r := range c.Rules {
		for _, s := range r.Samples {
			n++
			id := fmt.Sprintf("t%d", n)
			bash := func(p secretcorpus.Placement) {
				if p.Applies(s) {
					plant("cc-bash", p.Name, nil, `{"session_id":"cc-bash","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":`+q(p.Put(s, r.ID))+`,"description":"deploy"}}`, s.Needle, r.ID)
				}
			}
			bash(secretcorpus.BashArg)
			bash(secretcorpus.Heredoc)
			bash(secretcorpus.Export)
			bash(secretcorpus.TokenURL)
			bash(secretcorpus.Bearer)
			if s.Bare {
				g := secretcorpus.GrepPattern.Put(s, r.ID)
				plant("cc-tools", "Grep pattern", nil, `{"session_id":"cc-tools","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Grep","tool_use_id":"g`+id+`","tool_input":{"pattern":`+q(g)+`,"path":"/w/src"}}`, s.Needle, r.ID)
				for _, p := range []secretcorpus.Placement{secretcorpus.SearchURL, secretcorpus.SearchURLRaw} {
					plant("cc-tools", p.Name, nil, `{"session_id":"cc-tools","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"WebFetch","tool_use_id":"f`+id+`","tool_input":{"url":`+q(p.Put(s, r.ID))+`,"prompt":"summarise"}}`, s.Needle, r.ID)
				}
				plant("cc-tools", "Write file_path", nil, `{"session_id":"cc-tools","hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Write","tool_use_id":"w`+id+`","tool_input":{"file_path":`+q(secretcorpus.FilePath.Put(s, r.ID))+`,"content":"x"}}`, s.Needle, r.ID)
				plant("cc-prompt", "prompt", nil, `{"session_id":"cc-prompt","hook_event_name":"UserPromptSubmit","cwd":"/w","prompt":`+q(secretcorpus.Prompt.Put(s, r.ID))+`}`, s.Needle, r.ID)
			}
			// Every dialect's command field, holding gitleaks' own line in
			// a heredoc (every sample has one).
			cmd := q(secretcorpus.Heredoc.Put(s, r.ID))
			plant("codex", "codex command", []string{"--harness", "codex"},
				`{"session_id":"codex","turn_id":"1","transcript_path":null,"cwd":"/w","hook_event_name":"PreToolUse","model":"gpt-5.1-codex","tool_name":"Bash","tool_input":{"command":`+cmd+`},"tool_use_id":"`+id+`"}`, s.Needle, r.ID)
			plant("gemini", "gemini command", []string{"--harness", "gemini"},
				`{"session_id":"gemini","transcript_path":"/home/dev/.gemini/tmp/x/chats/session.json","cwd":"/w","hook_event_name":"BeforeTool","timestamp":"2026-05-14T10:02:22.114Z","tool_name":"run_shell_command","tool_input":{"command":`+cmd+`,"description":"deploy"}}`, s.Needle, r.ID)
			plant("cursor", "cursor command", []string{"--harness", "cursor"},
				`{"conversation_id":"cursor","generation_id":"`+id+`","hook_event_name":"beforeShellExecution","cursor_version":"2.1.42","workspace_roots":["/w"],"command":`+cmd+`,"cwd":"/w"}`, s.Needle, r.ID)
			plant("copilot", "copilot-cli command", []string{"--harness", "copilot-cli", "--event", "preToolUse"},
				`{"sessionId":"copilot","timestamp":1771484580000,"cwd":"/w","toolName":"bash","toolArgs":`+q(`{"command":`+cmd+`,"description":"deploy"}`)+`}`, s.Needle, r.ID)
			plant("vscode", "vscode command", []string{"--harness", "vscode"},
				`{"timestamp":"2026-03-10T22:48:31.434Z","hook_event_name":"PreToolUse","session_id":"vscode","transcript_path":"/home/dev/.config/Code/User/workspaceStorage/x/GitHub.copilot-chat/transcripts/vscode.jsonl","tool_name":"run_in_terminal","tool_input":{"command":`+cmd+`,"isBackground":false},"tool_use_id":"`+id+`","cwd":"/w"}`, s.Needle, r.ID)
			plant("grok", "grok command", []string{"--harness", "grok"},
				`{"hookEventName":"pre_tool_use","sessionId":"grok","cwd":"/w","timestamp":"2026-07-02T14:00:06.044000000+00:00","toolName":"run_terminal_command","toolUseId":"`+id+`","toolInput":{"command":`+cmd+`,"timeout":120}}`, s.Needle, r.ID)
		}
	}

	// One goroutine per session: events of a session in order, sessions
	// side by side (each has its own lock and file).
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	getenv := func(string) string { return "" }
	for session, evs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, ev := range evs {
				var stderr bytes.Buffer
				args := append([]string{"--dir", dir}, ev.args...)
				if code := run(args, bytes.NewReader(ev.payload), io.Discard, &stderr, getenv); code != 0 || stderr.Len() > 0 {
					t.Errorf("%s: exit %d: %s", session, code, stderr.String())
					return
				}
			}
		}()
	}
	// logbook-wrap's command line: what it records for a wrapped command
	// (wraprun.Run with the directory's rules, as cmd/logbook-wrap runs it).
	wrapped := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		red, err := redact.LoadConfig(dir)
		if err != nil {
			t.Error(err)
			return
		}
		hdr := journalfile.Header{Session: "wrap", Cwd: "/w", Harness: "logbook-wrap"}
		for _, r := range c.Rules {
			for _, s := range r.Samples {
				argvs := [][]string{{"env", secretcorpus.EnvName(r.ID) + "=" + s.Needle, "true"}}
				if s.Bare {
					argvs = append(argvs, []string{"true", "deploy", "--region", "eu-west-1", s.Needle})
				}
				for _, argv := range argvs {
					secrets = append(secrets, s.Needle)
					where = append(where, planted{r.ID, "logbook-wrap command line"})
					wrapped++
					res := wraprun.Run(wraprun.Options{
						Argv: argv, Cwd: work, Env: os.Environ(), Stdout: io.Discard, Stderr: io.Discard,
						Redactor: red, ID: fmt.Sprintf("wrap_%d", wrapped),
						Now: func() string { return "2026-05-01T00:00:00Z" },
						Record: func(st chain.Step) error {
							j, err := journalfile.Open(dir, "wrap")
							if err != nil {
								return err
							}
							_, err = j.Append(hdr, []chain.Step{st})
							if cerr := j.Close(); err == nil {
								err = cerr
							}
							return err
						},
					})
					if res.Err != nil || res.ExitCode != 0 {
						t.Errorf("wrap %q: exit %d: %v", argv[0], res.ExitCode, res.Err)
						return
					}
				}
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	counts["logbook-wrap command line"] = wrapped
	sessions["wrap"] = nil

	_, priv, _ := ed25519.GenerateKey(nil)
	finder := secretcorpus.NewFinder(secrets)
	survived := map[string]int{}
	leaked := map[int]bool{}
	events := 0
	names := make([]string, 0, len(sessions))
	for s := range sessions {
		names = append(names, s)
	}
	sort.Strings(names)
	for _, session := range names {
		journalBytes, err := os.ReadFile(journalfile.Path(dir, session))
		if err != nil {
			t.Fatal(err)
		}
		sealed, err := logbook.Seal(dir, session, priv, logbook.SealOptions{Goal: "deploy"})
		if err != nil {
			t.Fatalf("seal %s: %v", session, err)
		}
		v, err := logbook.Verify(sealed.Record, logbook.VerifyOptions{Pinned: []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)}})
		if err != nil {
			t.Fatalf("verify %s: %v", session, err)
		}
		events += int(v.StepCount)
		for _, text := range [][]byte{journalBytes, sealed.Record} {
			for _, i := range finder.Find(string(text)) {
				if !leaked[i] {
					leaked[i] = true
					survived[where[i].placement]++
					t.Errorf("%s: a %s secret survives (%s): %.80q", session, where[i].rule, where[i].placement, secrets[i])
				}
			}
		}
	}
	var lines []string
	for _, p := range sortedKeys(counts) {
		lines = append(lines, fmt.Sprintf("  %-28s %4d / %4d survive", p, survived[p], counts[p]))
	}
	summary := fmt.Sprintf("gitleaks corpus through record-step and logbook-wrap: %d samples planted %d times in %d sealed steps; %d survive in the records\n%s",
		n, len(secrets), events, len(leaked), strings.Join(lines, "\n"))
	testreport.Line(t, summary)
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
