package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/hookconf"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// harnessReplay is one harness's session: its payloads in order, the
// configuration event each one arrives on, and where they come from.
type harnessReplay struct {
	harness, name string
	payloads      [][]byte
	events        []string // the configured event of each payload (nil: its own name)
	source        string
}

// ownReplays: the synthesized session of every harness (internal/testkit/synth).
func ownReplays() []harnessReplay {
	var out []harnessReplay
	for _, h := range synth.Harnesses {
		s, _ := synth.Dialect(h)
		out = append(out, harnessReplay{harness: h, name: "synth/" + s.Name, payloads: s.Events, events: s.Config, source: "synthesized, documented shape"})
	}
	return out
}

// realReplays: the real sequences of the shared samples (conformance),
// each closed by a session end in the harness's shape so the last hook
// seals.
func realReplays(t *testing.T) []harnessReplay {
	copilot := readLines(t, corpora.Require(t, "samples/hooks/copilot-cli/sequence-b0ff98c0.jsonl", "replay of real Copilot CLI and Grok sessions through installed hooks"))
	grok := readLines(t, corpora.Require(t, "samples/hooks/grok/sequence-019f232a.jsonl", "replay of a real Grok session through installed hooks"))
	var g struct {
		ID string `json:"sessionId"`
	}
	json.Unmarshal(grok[0], &g)
	end := []byte(`{"hookEventName":"session_end","sessionId":"` + g.ID + `","cwd":"/home/dev","workspaceRoot":"/home/dev/","timestamp":"2026-07-02T14:18:02.000000000+00:00","reason":"shutdown"}`)
	return []harnessReplay{
		{harness: "copilot-cli", name: "samples/copilot-cli/sequence-b0ff98c0.jsonl", payloads: copilot,
			events: []string{"userPromptSubmitted", "sessionStart", "agentStop", "sessionEnd"}, source: "real"},
		{harness: "grok", name: "samples/grok/sequence-019f232a.jsonl", payloads: append(grok, end), source: "real + synthesized session end"},
	}
}

func readFile(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// configEvent is the configuration key a payload arrives on: its own event
// name, Grok's PascalCase form of its snake_case one, or the listed one
// for Copilot CLI's nameless payloads.
func (r harnessReplay) configEvent(i int, p []byte) string {
	if r.events != nil {
		return r.events[i]
	}
	var h struct {
		A string `json:"hook_event_name"`
		B string `json:"hookEventName"`
	}
	json.Unmarshal(p, &h)
	if h.B != "" {
		c, _ := hookevent.Canonical(h.B)
		return c
	}
	return h.A
}

// installedCommands installs the harness's hooks into a fresh project and
// returns the command each configured event runs, read back from the file
// install wrote.
func installedCommands(t *testing.T, harness, project string) map[string]string {
	out, err := exec.Command(filepath.Join(bin, "record-step"), "install", "--harness", harness, "--project", project, "--no-key", "--no-guard").CombinedOutput()
	if err != nil {
		t.Fatalf("install %s: %v\n%s", harness, err, out)
	}
	spec := hookconf.Lookup(harness)
	var cfg struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(project, spec.ProjectFile)), &cfg); err != nil {
		t.Fatal(err)
	}
	cmds := map[string]string{}
	for ev, list := range cfg.Hooks {
		h := list[0]
		if !spec.Flat {
			h = list[0]["hooks"].([]any)[0].(map[string]any)
		}
		cmds[ev] = h[spec.CommandKey].(string)
	}
	return cmds
}

// hookEnv is the environment a harness gives its hooks, without anything
// the test runner itself may have set.
func hookEnv(project, at, key string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "LOGBOOK_DIR", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "GROK_WORKSPACE_ROOT", "LOGBOOK_NOW", "LOGBOOK_SIGNING_KEY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CLAUDE_PROJECT_DIR="+project, "GEMINI_PROJECT_DIR="+project, "GROK_WORKSPACE_ROOT="+project+"/",
		"LOGBOOK_NOW="+at, "LOGBOOK_SIGNING_KEY="+key)
}

// TestHarnessReplays: for every harness, install its hooks into a fresh
// project, run each fixture payload through the very command the installed
// configuration gives its event (sh -c, in the project, with the harness's
// environment), let the session-end hook seal, and verify the record pinned
// to the key. The record names the harness; its steps are counted by kind.
func TestHarnessReplays(t *testing.T) {
	t.Parallel()
	replayHarnesses(t, ownReplays())
}

// TestRealHarnessReplays does the same with the real sequences of the
// shared samples (conformance).
func TestRealHarnessReplays(t *testing.T) {
	t.Parallel()
	replayHarnesses(t, realReplays(t))
}

func replayHarnesses(t *testing.T, replays []harnessReplay) {
	work := t.TempDir()
	_, pub := newKey(t, work, "signing")
	keyPEM := string(readFile(t, filepath.Join(work, "signing.key")))
	var table []string
	for n, r := range replays {
		project := filepath.Join(work, fmt.Sprintf("p%d-%s", n, r.harness))
		if err := os.MkdirAll(filepath.Join(project, ".logbook", "bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, prog := range []string{"record-step", "logbook-seal"} {
			if err := os.Link(filepath.Join(bin, prog), filepath.Join(project, ".logbook", "bin", prog)); err != nil {
				writeExe(filepath.Join(project, ".logbook", "bin", prog), readFile(t, filepath.Join(bin, prog)))
			}
		}
		cmds := installedCommands(t, r.harness, project)
		payloads := r.payloads
		session := ""
		delivered := 0
		for i, p := range payloads {
			ev := r.configEvent(i, p)
			cmdline, ok := cmds[ev]
			if !ok && notWired[r.harness+" "+ev] {
				continue // the harness would not call logbook for it
			}
			if !ok {
				t.Fatalf("%s: payload %d arrives on %q, which install does not wire", r.harness, i, ev)
			}
			delivered++
			sealing := strings.Contains(cmdline, "logbook-seal --hook")
			if sealing != (i == len(payloads)-1) {
				t.Fatalf("%s: payload %d (%s) sealing=%v; only the last should seal", r.harness, i, ev, sealing)
			}
			cmd := exec.Command("sh", "-c", cmdline)
			cmd.Dir = project
			cmd.Env = hookEnv(project, fmt.Sprintf("2026-05-01T10:%02d:%02dZ", i/60, i%60), keyPEM)
			cmd.Stdin = bytes.NewReader(p)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil || stdout.Len() > 0 || stderr.Len() > 0 {
				t.Fatalf("%s payload %d (%s): %v stdout=%q stderr=%q", r.harness, i, cmdline, err, stdout.String(), stderr.String())
			}
			parsed, _ := hookevent.Parse(p)
			session = parsed.Session
		}
		rec := filepath.Join(project, ".logbook", session+".record.json")
		v := verify(t, rec, pub)
		if !v.OK || *v.StepCount < int64(delivered) {
			t.Fatalf("%s: %+v (%d payloads)", r.harness, v, len(payloads))
		}
		got := readRecord(t, rec)
		agent, _ := got.Session["agent"].(string)
		if !strings.HasPrefix(agent, r.harness) {
			t.Errorf("%s: session.agent %q", r.harness, agent)
		}
		kinds := map[string]int{}
		for _, s := range got.Steps {
			kinds[s.Kind]++
		}
		table = append(table, fmt.Sprintf("| %s | %s | %s | %d | %d | %s | %s |", r.harness, agent, r.name, len(payloads), len(got.Steps), kindCounts(kinds), r.source))
	}
	t.Logf("\n| harness | session.agent | fixtures | events | steps | steps by kind | source |\n|---|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// notWired are events install leaves unwired on purpose (internal/hookconf,
// dialect_NAME.go): none of those a replay sends.
var notWired = map[string]bool{}

func kindCounts(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(out, ", ")
}

// TestGrokThroughClaudeHooks: Grok Build runs hooks configured for Claude
// Code; a Claude-configured record-step that receives Grok's payloads
// records a session of Grok's.
func TestGrokThroughClaudeHooks(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	s, _ := synth.Dialect("grok")
	lines := s.Events
	for i, p := range lines {
		recordStep(t, dir, fmt.Sprintf("2026-07-02T14:%02d:%02dZ", i/60, i%60), p, "--harness", "claude-code")
	}
	out := filepath.Join(work, "grok.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", s.ID, "--key", key, "--out", out)
	if v := verify(t, out, pub); !v.OK || *v.StepCount != int64(len(lines)) {
		t.Fatalf("%+v", v)
	}
	if agent := readRecord(t, out).Session["agent"]; agent != "grok" {
		t.Errorf("session.agent %q, want grok", agent)
	}
}

// TestCodexNotifyArgument: Codex's legacy notify program gets its JSON as
// the last command-line argument and no stdin; record-step records it.
func TestCodexNotifyArgument(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	key, pub := newKey(t, work, "signing")
	dir := filepath.Join(work, "sessions")
	notify := synth.Quirks()["codex/notify-agent-turn-complete.json"]
	cmd := exec.Command(filepath.Join(bin, "record-step"), "--harness", "codex", string(notify))
	cmd.Env = append(os.Environ(), "LOGBOOK_DIR="+dir, "LOGBOOK_NOW=2026-05-01T00:00:00Z")
	cmd.Stdin = nil // /dev/null, as Codex spawns it
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("%v %s", err, out)
	}
	out := filepath.Join(work, "notify.json")
	run(t, []string{"LOGBOOK_DIR=" + dir}, "logbook-seal", "--session", "0199c0de-5a11-7e57-8d0c-00000000000a", "--key", key, "--out", out)
	v := verify(t, out, pub)
	rec := readRecord(t, out)
	if !v.OK || len(rec.Steps) != 1 || rec.Steps[0].Kind != "claim" || rec.Session["agent"] != "codex" {
		t.Fatalf("%+v %+v", v, rec)
	}
}

// TestInstallCommand: the binary's install and uninstall on a copy of a
// real-looking configuration: dry run prints a diff and writes nothing,
// install then uninstall gives the file back byte for byte, a malformed
// file is refused with exit 1, and nothing reaches stdout on failure.
func TestInstallCommand(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	cfg := filepath.Join(project, ".cursor", "hooks.json")
	orig := readFile(t, "../testdata/install/cursor-hooks.json")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	os.WriteFile(cfg, orig, 0o644)
	rs := func(args ...string) (int, string, string) {
		if args[0] == "install" {
			args = append(args, "--no-key", "--no-guard")
		}
		cmd := exec.Command(filepath.Join(bin, "record-step"), append(args, "--harness", "cursor", "--project", project)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, out.String(), errb.String()
	}
	if code, out, _ := rs("install", "--dry-run"); code != 0 || !strings.Contains(out, `.logbook/bin/record-step --harness cursor --dir .logbook"`) {
		t.Fatalf("dry run: %d\n%s", code, out)
	}
	if !bytes.Equal(readFile(t, cfg), orig) {
		t.Fatal("dry run wrote")
	}
	if code, out, _ := rs("install"); code != 0 || !strings.Contains(out, "backup: ") {
		t.Fatalf("install: %d %s", code, out)
	}
	if code, _, _ := rs("uninstall"); code != 0 || !bytes.Equal(readFile(t, cfg), orig) {
		t.Fatalf("uninstall: %d, round trip exact: %v", code, bytes.Equal(readFile(t, cfg), orig))
	}
	os.WriteFile(cfg, []byte("{\"version\": 1, // no\n}"), 0o644)
	if code, out, errs := rs("install"); code != 1 || out != "" || !strings.Contains(errs, "nothing was changed") {
		t.Fatalf("malformed: %d %q %q", code, out, errs)
	}
}

// TestInstallNeedsLogbookInstall: record-step alone (no logbook-install
// beside it) says what is missing instead of failing silently.
func TestInstallNeedsLogbookInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lone := filepath.Join(dir, "record-step")
	if err := writeExe(lone, readFile(t, filepath.Join(bin, "record-step"))); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lone, "install", "--harness", "codex", "--project", dir).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "logbook-install") {
		t.Fatalf("%v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex")); err == nil {
		t.Error("something was written")
	}
}
