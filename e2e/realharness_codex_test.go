package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// The real Codex CLI, pinned: the current release and the one before it
// (npm view @openai/codex versions; 0.170.0 was published for Linux only).
var codexVersions = []string{"0.171.0", "0.170.0"}

// codexEvents is every hook event Codex's hook engine knows (its binary's
// own list), whether or not logbook installs a handler for it: the saving
// block listens to all of them, so an event logbook misses is seen.
var codexEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"PreCompact", "PostCompact", "Stop", "SessionEnd", "SubagentStart", "SubagentStop", "Interrupt"}

// TestRealCodexCLI runs the real Codex CLI (codex exec, then codex exec
// resume on the same session) against a fake OpenAI Responses API that
// scripts parallel shell calls, a failing command and an apply_patch.
func TestRealCodexCLI(t *testing.T) {
	t.Parallel()
	eachRelease(t, "@openai/codex", codexVersions, realCodexCLI)
}

func realCodexCLI(t *testing.T, pkg, version string) {
	codex := npmTool(t, pkg, "codex")
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o700)
	proj, saved := harnessProject(t, "codex", ".codex/hooks.json", home, codexEvents)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	// Codex offers the model exec_command (its unified exec tool) for a
	// model it has no metadata for; apply_patch is run through it.
	patch := "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: out.txt\n+hello\n*** End Patch\nEOF\n"
	calls := [][]fakemodel.ToolCall{
		{
			{ID: "call_hello", Name: "exec_command", Input: raw(`{"cmd":"echo hello"}`)},
			{ID: "call_fail", Name: "exec_command", Input: raw(`{"cmd":"GITHUB_TOKEN=` + plantedSecret + ` sh -c 'exit 3'"}`)},
		},
		{{ID: "call_patch", Name: "exec_command", Input: mustJSON(map[string]string{"cmd": patch})}},
	}
	resumed := fakemodel.ToolCall{ID: "call_resumed", Name: "exec_command", Input: raw(`{"cmd":"echo resumed"}`)}
	script := &fakemodel.Script{Agents: map[string][]fakemodel.Turn{"RESUMED": {{Text: "Again.", Calls: []fakemodel.ToolCall{resumed}}}}}
	for _, c := range calls {
		script.Turns = append(script.Turns, fakemodel.Turn{Text: "Working.", Calls: c})
	}
	srv, err := fakemodel.OpenAI(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := `model = "gpt-fake"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "` + srv.URL + `/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true

[projects."` + proj + `"]
trust_level = "trusted"
`
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600)
	// --dangerously-bypass-hook-trust: Codex runs a project's hooks only
	// once a person has reviewed them (/hooks in the interactive CLI); a
	// test has no person, and the hooks are the ones install wrote.
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, codex, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "FAKE_OPENAI_API_KEY=sk-fake",
			"LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=", "RUST_LOG=")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("codex %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	out := run("exec", "--json", "--dangerously-bypass-hook-trust", "do the work")
	var started struct {
		Type     string
		ThreadID string `json:"thread_id"`
	}
	json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &started)
	if started.ThreadID == "" {
		t.Fatalf("codex exec: no thread.started line:\n%s", out)
	}
	first := len(srv.Scripted())
	run("exec", "resume", "--json", "--dangerously-bypass-hook-trust", started.ThreadID, "RESUMED: once more")
	if n := len(srv.Scripted()); n <= first {
		t.Fatalf("codex exec resume asked the model nothing (%d scripted requests before, %d after)", first, n)
	}
	waitQuiet(saved)
	sid := started.ThreadID
	// The record compared is the one the hooks sealed, not one sealed
	// again by hand: SessionEnd, which comes after the last Stop, seals
	// too, so every event Codex sent must be in it.
	rec := filepath.Join(proj, ".logbook", sid+".record.json")
	label := "codex " + version
	steps := compareEvents(t, label, saved, rec)
	// Every event Codex sent, by name, and the events of each kind both
	// sessions must have sent: the resumed one too.
	sent := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(saved, "p-*"))
	for _, f := range files {
		p, _ := os.ReadFile(f)
		var h struct {
			Event  string `json:"hook_event_name"`
			Source string
		}
		json.Unmarshal(p, &h)
		sent[h.Event]++
		if h.Event == "SessionStart" {
			sent["SessionStart:"+h.Source]++
		}
	}
	testreport.Line(t, fmt.Sprintf("%s: events sent by name: %v", label, sent))
	for _, ev := range []string{"SessionStart:startup", "SessionStart:resume", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"} {
		if sent[ev] == 0 {
			t.Errorf("%s: Codex sent no %s (a scripted session should)", label, ev)
		}
	}
	if sent["UserPromptSubmit"] < 2 || sent["Stop"] < 2 {
		t.Errorf("%s: want a prompt and a Stop from each of the two runs, got %v", label, sent)
	}
	// Attribution: every step from an event that names its turn carries
	// it; every tool call the model made is recorded with the digest of
	// the input Codex ran.
	for _, s := range steps {
		d := s.Get("data")
		ev, _ := d.GetString("event")
		if strings.HasPrefix(ev, "logbook.") || ev == "SessionStart" || ev == "SessionEnd" {
			continue
		}
		if tid, _ := d.GetString("turnId"); tid == "" {
			t.Errorf("%s: step #%s (%s) has no turnId", label, num(s, "seq"), ev)
		}
	}
	for _, c := range append(append(append([]fakemodel.ToolCall{}, calls[0]...), calls[1]...), resumed) {
		found := false
		for _, s := range steps {
			if id, _ := s.Get("data").GetString("toolUseId"); id == c.ID {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: tool call %s: no step names it", label, c.ID)
		}
	}
	// apply_patch run through exec_command: Codex 0.169 to 0.171 send
	// its PreToolUse and no PostToolUse (the patch is applied); the seal
	// names the call left open in a note of its own.
	testreport.Line(t, fmt.Sprintf("%s: PreToolUse %d, PostToolUse %d (apply_patch has a PreToolUse only)", label, sent["PreToolUse"], sent["PostToolUse"]))
	codexModelSawNoHookOutput(t, label, srv)
}

// codexModelSawNoHookOutput: what record-step and logbook-seal print never
// reaches the model. Codex's own instructions and tool list are left out
// of what is read, and its prompt (which says "not found" of a missing rg)
// is why the messages' own prefixes are looked for, not that phrase.
func codexModelSawNoHookOutput(t *testing.T, label string, s *fakemodel.Server) {
	for _, r := range s.Requests() {
		var m map[string]json.RawMessage
		json.Unmarshal(r.Body, &m)
		delete(m, "instructions")
		delete(m, "tools")
		b, _ := json.Marshal(m)
		for _, w := range []string{"record-step:", "logbook-seal:", "logbook:", "not recorded"} {
			if strings.Contains(string(b), w) {
				t.Errorf("%s: request %s (turn %d) holds %q: hook output reached the model", label, r.Path, r.Turn, w)
			}
		}
	}
	testreport.Line(t, fmt.Sprintf("%s: %d model requests (%d scripted turns) read: none holds hook output", label, len(s.Requests()), len(s.Scripted())))
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
