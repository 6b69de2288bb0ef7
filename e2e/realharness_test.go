package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/fakemodel"
	"github.com/logbook-project/logbook/internal/testkit/testreport"
)

// The real CLIs, pinned: the current release and the one before it
// (npm view PKG versions), each driven by the same test. The test installs
// them from npm into a cache directory ($LOGBOOK_NPM_CACHE, else the user
// cache directory) the first time, and reuses them after.
var (
	claudeCodeVersions = []string{"2.1.332", "2.1.331"}
	geminiCLIVersions  = []string{"0.61.0", "0.60.0"}
)

const (
	claudeCodePkg = "@anthropic-ai/claude-code@2.1.332" // the current one, for the tests run on one release
)

// eachRelease runs f for every pinned release of pkg, in parallel (each
// has its own project, home and fake model).
func eachRelease(t *testing.T, pkg string, versions []string, f func(t *testing.T, pkgAt, version string)) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			f(t, pkg+"@"+v, v)
		})
	}
}

// npmTool installs pkg (name@version) once and returns the path of its
// command. Without npm the test says so in one line and skips.
func npmTool(t *testing.T, pkg, command string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real harnesses: not under -short (the quick run .ci/run makes in a clone with nothing beside it)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not found: the real-harness tests install " + pkg + " with it")
	}
	cache := os.Getenv("LOGBOOK_NPM_CACHE")
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(c, "logbook", "npm")
	}
	name := strings.NewReplacer("@", "", "/", "-").Replace(pkg)
	dir := filepath.Join(cache, name)
	exe := filepath.Join(dir, "node_modules", ".bin", command)
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	// Tests run in parallel, and so may other go test processes: one
	// install at a time per package (an exclusive lock on a file beside
	// it), into a fresh folder renamed into place only when complete, so
	// a killed install never leaves a half-made one that looks ready.
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(cache, name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := lockWait(lock); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(exe); err == nil {
		return exe // another test installed it while this one waited
	}
	tmp, err := os.MkdirTemp(cache, name+".part-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error", pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", pkg, err, out)
	}
	os.RemoveAll(dir) // a folder without the command is an old broken install
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	return exe
}

// A planted secret: the fake model puts it in a command; no record may
// hold it in clear.
const plantedSecret = "ghp_R3alLookingT0kenAbCdEfGhIjKlMnOpQrSt"

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// harnessProject makes a project with the binaries in .logbook/bin, runs
// record-step install for harness (with install's extra arguments, if
// any: --policy … also copies logbook-policy), then adds a second hooks
// block that only saves every payload into DIR/payloads/, one file each.
func harnessProject(t *testing.T, harness, settings, home string, events []string, install ...string) (proj, saved string) {
	proj = filepath.Join(t.TempDir(), "proj")
	saved = filepath.Join(t.TempDir(), "payloads")
	for _, d := range []string{proj, saved, filepath.Join(proj, ".logbook", "bin"), filepath.Join(proj, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("some notes\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Rules\nBe brief.\n"), 0o644)
	if out, err := exec.Command("git", "-C", proj, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	binaries := []string{"record-step", "logbook-seal", "logbook-install", "logbook-verify"}
	if len(install) > 0 {
		binaries = append(binaries, "logbook-policy")
	}
	for _, c := range binaries {
		b, err := os.ReadFile(filepath.Join(bin, c))
		if err != nil {
			t.Fatal(err)
		}
		writeExe(filepath.Join(proj, ".logbook", "bin", c), b)
	}
	inst := exec.Command(filepath.Join(proj, ".logbook", "bin", "record-step"), append([]string{"install", "--harness", harness, "--project", proj, "--no-key"}, install...)...)
	inst.Env = append(os.Environ(), "HOME="+home)
	if out, err := inst.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	path := filepath.Join(proj, settings)
	var cfg map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	hooks := cfg["hooks"].(map[string]any)
	save := `sh -c 'cat > "$(mktemp "` + saved + `/p-XXXXXXXX")"'`
	for _, ev := range events {
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, map[string]any{"hooks": []any{map[string]any{"type": "command", "command": save}}})
	}
	b, _ = json.MarshalIndent(cfg, "", "  ")
	os.WriteFile(path, b, 0o644)
	return proj, saved
}

// stepKey is what a step says about one event, without at, seq and hash.
func stepKey(kind, summary string, data *strictjson.Value, inputs, outputs []string) string {
	d, _ := jcs.Append(nil, data)
	return fmt.Sprintf("%s|%s|%s|%v|%v", kind, summary, d, inputs, outputs)
}

// compareEvents checks that every saved payload is exactly one step of the
// record and the record holds nothing else but logbook's own notes, and
// prints the comparison event by event.
func compareEvents(t *testing.T, label, saved, recordPath string) (steps []*strictjson.Value) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(saved, "p-*"))
	rec, err := os.ReadFile(recordPath)
	if err != nil {
		t.Fatalf("%s: no record: %v", label, err)
	}
	v, err := strictjson.Parse(rec, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type rs struct {
		key  string
		v    *strictjson.Value
		used bool
	}
	var record []*rs
	for i := range v.Get("steps").Items {
		s := &v.Get("steps").Items[i]
		steps = append(steps, s)
		record = append(record, &rs{key: stepKey(str(s, "kind"), str(s, "summary"), s.Get("data"), strs(s.Get("inputsSha256")), strs(s.Get("outputsSha256"))), v: s})
	}
	type sent struct {
		ev hookevent.Event
	}
	var events []sent
	for _, f := range files {
		p, _ := os.ReadFile(f)
		ev, err := hookevent.Parse(p)
		if err != nil {
			t.Errorf("%s: a payload the harness sent does not parse: %v", label, err)
			continue
		}
		events = append(events, sent{ev: ev})
	}
	// In the record's order, so the report reads as the session went.
	var report []string
	matched := 0
	for _, e := range events {
		k := stepKey(e.ev.Step.Kind, e.ev.Step.Summary, &e.ev.Step.Data, e.ev.Step.Inputs, e.ev.Step.Outputs)
		found := -1
		for i, r := range record {
			if !r.used && r.key == k {
				r.used, found = true, i
				break
			}
		}
		if found < 0 {
			t.Errorf("%s: event %s (%s) sent but not recorded as one step", label, e.ev.Name, e.ev.Step.Summary)
			report = append(report, fmt.Sprintf("%s: MISSING %s: %s", label, e.ev.Name, e.ev.Step.Summary))
			continue
		}
		matched++
		s := record[found].v
		report = append(report, fmt.Sprintf("%06d %s: sent %-20s → step #%s %-9s %s", found, label, e.ev.Name, num(s, "seq"), str(s, "kind"), clip(str(s, "summary"), 70)))
	}
	sort.Strings(report)
	for i := range report {
		if len(report[i]) > 7 && report[i][6] == ' ' {
			report[i] = report[i][7:]
		}
	}
	extra := 0
	for _, r := range record {
		if !r.used {
			ev, _ := r.v.Get("data").GetString("event")
			if !strings.HasPrefix(ev, "logbook.") {
				t.Errorf("%s: step #%s (%s) matches no event the harness sent", label, num(r.v, "seq"), str(r.v, "summary"))
			}
			extra++
			report = append(report, fmt.Sprintf("%s: logbook's own step #%s %s: %s", label, num(r.v, "seq"), str(r.v, "kind"), clip(str(r.v, "summary"), 70)))
		}
	}
	testreport.Line(t, fmt.Sprintf("%s: %d events sent (second hooks block), %d steps recorded, %d matched one to one, %d logbook notes", label, len(events), len(record), matched, extra))
	for _, l := range report {
		testreport.Line(t, "  "+l)
	}
	if strings.Contains(string(rec), plantedSecret) {
		t.Errorf("%s: the planted secret is in the record", label)
	}
	out, err := exec.Command(filepath.Join(bin, "logbook-verify"), recordPath).CombinedOutput()
	if err != nil {
		t.Errorf("%s: logbook-verify: %v\n%s", label, err, out)
	}
	return steps
}

func str(v *strictjson.Value, k string) string { s, _ := v.GetString(k); return s }
func num(v *strictjson.Value, k string) string {
	if n := v.Get(k); n != nil {
		return n.Str
	}
	return ""
}
func strs(v *strictjson.Value) []string {
	var out []string
	if v != nil {
		for _, it := range v.Items {
			out = append(out, it.Str)
		}
	}
	return out
}
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// inputDigest is the digest spec §8 gives a tool input the model sent.
func inputDigest(t *testing.T, in json.RawMessage) string {
	v, err := strictjson.Parse(in, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := digest.Body(v, in)
	return sum
}

// checkModelSawNoHookOutput: what record-step and logbook-seal print never
// reaches the model: no request after the first holds their names.
func checkModelSawNoHookOutput(t *testing.T, label string, s *fakemodel.Server) {
	for _, r := range s.Requests() {
		// The messages' own prefixes: the names alone appear in Gemini
		// CLI's listing of the project's files, which the model is sent.
		for _, w := range []string{"record-step:", "logbook-seal:", "not recorded", "not found"} {
			if strings.Contains(string(r.Body), w) {
				t.Errorf("%s: request %s (turn %d) holds %q: hook output reached the model", label, r.Path, r.Turn, w)
			}
		}
	}
	testreport.Line(t, fmt.Sprintf("%s: %d model requests (%d scripted turns) read: none holds hook output", label, len(s.Requests()), len(s.Scripted())))
}

// TestRealClaudeCode runs the real Claude Code CLI against a fake
// Anthropic API that scripts parallel Bash, Read, Write and Edit calls, a
// failing command, an unavailable tool (named only by PostToolBatch) and a
// background sub-agent with its own tool call.
func TestRealClaudeCode(t *testing.T) {
	t.Parallel()
	eachRelease(t, "@anthropic-ai/claude-code", claudeCodeVersions, realClaudeCode)
}

func realClaudeCode(t *testing.T, pkg, version string) {
	claude := npmTool(t, pkg, "claude")
	events := []string{"Setup", "SessionStart", "InstructionsLoaded", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
		"PostToolUse", "PostToolUseFailure", "PostToolBatch", "PermissionRequest", "PermissionDenied", "Notification",
		"SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted", "TeammateIdle", "Elicitation", "ElicitationResult",
		"PreModelSwitch", "PostModelSwitch", "CwdChanged", "FileChanged", "DirectoryAdded", "ConfigChange", "PreCompact",
		"PostCompact", "Stop", "StopFailure", "PreSkillShellCommand", "SessionEnd"}
	home := t.TempDir()
	proj, saved := harnessProject(t, "claude-code", ".claude/settings.json", home, events)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	calls := [][]fakemodel.ToolCall{
		{
			{ID: "toolu_01bash", Name: "Bash", Input: raw(`{"command":"echo hello && cd sub","description":"say hello"}`)},
			{ID: "toolu_02read", Name: "Read", Input: raw(`{"file_path":"` + proj + `/notes.txt"}`)},
			{ID: "toolu_03none", Name: "TaskCreate", Input: raw(`{"subject":"Write the report","description":"all","activeForm":"Writing"}`)},
		},
		{
			{ID: "toolu_04write", Name: "Write", Input: raw(`{"file_path":"` + proj + `/out.txt","content":"hello\n"}`)},
			{ID: "toolu_05fail", Name: "Bash", Input: raw(`{"command":"GITHUB_TOKEN=` + plantedSecret + ` sh -c 'exit 3'"}`)},
		},
		{{ID: "toolu_06edit", Name: "Edit", Input: raw(`{"file_path":"` + proj + `/out.txt","old_string":"hello","new_string":"bye","replace_all":false}`)}},
		{{ID: "toolu_07agent", Name: "Agent", Input: raw(`{"description":"look","prompt":"SUBTASK: echo from the sub-agent","subagent_type":"general-purpose"}`)}},
	}
	sub := fakemodel.ToolCall{ID: "toolu_08sub", Name: "Bash", Input: raw(`{"command":"echo sub"}`)}
	script := &fakemodel.Script{Agents: map[string][]fakemodel.Turn{"SUBTASK": {{Calls: []fakemodel.ToolCall{sub}}}}}
	for _, c := range calls {
		script.Turns = append(script.Turns, fakemodel.Turn{Text: "Working.", Calls: c})
	}
	srv, err := fakemodel.Anthropic(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "do the work", "--permission-mode", "bypassPermissions", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=")
	// stdout alone is the JSON result: 2.1.331, which does not know
	// PreSkillShellCommand, says on stderr that it skipped that entry.
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude: %v\n%s\n%s", err, out, stderr.String())
	}
	var res struct {
		Result    string
		SessionID string `json:"session_id"`
	}
	json.Unmarshal(out, &res)
	// The background sub-agent may finish after the main agent's end;
	// SessionEnd sealed what had come by then. Seal again once every hook
	// has run, so the record holds every step.
	waitQuiet(saved)
	rec := filepath.Join(proj, ".logbook", res.SessionID+".record.json")
	if o, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", filepath.Join(proj, ".logbook"), "--session", res.SessionID, "--key", key, "--out", rec).CombinedOutput(); err != nil {
		t.Fatalf("seal: %v %s", err, o)
	}
	steps := compareEvents(t, "claude-code "+version, saved, rec)
	// Each tool call the model made is recorded with the digest of the
	// input it sent; the sub-agent's carries its agent.
	for _, c := range append(append(append(append([]fakemodel.ToolCall{}, calls[0]...), calls[1]...), calls[2]...), append(calls[3], sub)...) {
		want := inputDigest(t, c.Input)
		found := false
		for _, s := range steps {
			d := s.Get("data")
			id, _ := d.GetString("toolUseId")
			ids := strs(d.Get("toolUseIds"))
			ins := strs(s.Get("inputsSha256"))
			if id == c.ID && len(ins) > 0 && ins[0] == want {
				found = true
				if c.ID == sub.ID {
					if a, _ := d.GetString("agentId"); a == "" {
						t.Errorf("the sub-agent's %s has no agentId", c.ID)
					}
				}
			}
			for i, x := range ids {
				if x == c.ID && i < len(ins) && ins[i] == want {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("tool call %s (%s): no step with the digest of the input the model sent", c.ID, c.Name)
		}
	}
	checkModelSawNoHookOutput(t, "claude-code "+version, srv)
}

// waitQuiet waits until no payload has been saved for half a second (the
// background hooks are done), at most 20 s.
func waitQuiet(dir string) {
	last, since := -1, time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "p-*"))
		if len(files) != last {
			last, since = len(files), time.Now()
		} else if time.Since(since) > 500*time.Millisecond {
			return
		}
	}
}

// TestRealGeminiCLI runs the real Gemini CLI against a fake Gemini API
// that scripts parallel shell and file calls, one of them failing.
func TestRealGeminiCLI(t *testing.T) {
	t.Parallel()
	eachRelease(t, "@google/gemini-cli", geminiCLIVersions, realGeminiCLI)
}

func realGeminiCLI(t *testing.T, pkg, version string) {
	gemini := npmTool(t, pkg, "gemini")
	events := []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "Notification", "PreCompress", "SessionEnd"}
	home := t.TempDir()
	proj, saved := harnessProject(t, "gemini", ".gemini/settings.json", home, events)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o700)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o600)
	key := filepath.Join(home, ".config", "logbook", "signing.key")
	os.MkdirAll(filepath.Dir(key), 0o700)
	if out, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--new-key", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	calls := [][]fakemodel.ToolCall{
		{{Name: "run_shell_command", Input: raw(`{"command":"echo hello"}`)}, {Name: "read_file", Input: raw(`{"file_path":"notes.txt"}`)}},
		{{Name: "run_shell_command", Input: raw(`{"command":"GITHUB_TOKEN=` + plantedSecret + ` sh -c 'exit 3'"}`)}, {Name: "write_file", Input: raw(`{"file_path":"out.txt","content":"hi\n"}`)}},
	}
	script := &fakemodel.Script{}
	for _, c := range calls {
		script.Turns = append(script.Turns, fakemodel.Turn{Calls: c})
	}
	srv, err := fakemodel.Gemini(script)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gemini, "-p", "do the work", "--yolo", "--output-format", "json")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_TRUST_WORKSPACE=true", "GOOGLE_GEMINI_BASE_URL="+srv.URL,
		"GEMINI_API_KEY=fake-key", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal(out, &res)
	// SessionEnd is not awaited by Gemini CLI: wait for the hooks, then
	// seal what they recorded.
	waitQuiet(saved)
	rec := filepath.Join(proj, ".logbook", res.SessionID+".record.json")
	if o, err := exec.Command(filepath.Join(bin, "logbook-seal"), "--dir", filepath.Join(proj, ".logbook"), "--session", res.SessionID, "--key", key, "--out", rec).CombinedOutput(); err != nil {
		t.Fatalf("seal: %v %s", err, o)
	}
	steps := compareEvents(t, "gemini-cli "+version, saved, rec)
	for _, c := range append(calls[0], calls[1]...) {
		want := inputDigest(t, c.Input)
		found := false
		for _, s := range steps {
			if ins := strs(s.Get("inputsSha256")); len(ins) > 0 && ins[0] == want {
				found = true
			}
		}
		if !found {
			t.Errorf("tool call %s %s: no step with the digest of the input the model sent", c.Name, c.Input)
		}
	}
	// The failing command is a failure with its exit code, though Gemini
	// CLI sends it as a plain AfterTool.
	failed := false
	for _, s := range steps {
		d := s.Get("data")
		if e, _ := d.GetString("event"); e == "PostToolUseFailure" && num(d, "exitCode") == "3" {
			failed = true
		}
	}
	if !failed {
		t.Error("the command that exited 3 is not recorded as a PostToolUseFailure with exitCode 3")
	}
	checkModelSawNoHookOutput(t, "gemini-cli "+version, srv)
}

// TestRealClaudeCodeSubdir: Claude Code started in a subdirectory of a
// recording project runs none of the project's hooks. The user-level
// guard install adds refuses the prompt, loudly, naming the fix, and the
// model is never asked; started at the root, the guard stays silent.
func TestRealClaudeCodeSubdir(t *testing.T) {
	t.Parallel()
	claude := npmTool(t, claudeCodePkg, "claude")
	home := t.TempDir()
	proj, _ := harnessProject(t, "claude-code", ".claude/settings.json", home, []string{"SessionStart"})
	srv, err := fakemodel.Anthropic(&fakemodel.Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	start := func(dir string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, "-p", "hello", "--permission-mode", "bypassPermissions")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "IS_SANDBOX=1", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "LOGBOOK_DIR=", "LOGBOOK_SIGNING_KEY=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := start(filepath.Join(proj, "sub"))
	asked := len(srv.Scripted())
	if asked != 0 || !strings.Contains(out, "this session would not be recorded") {
		t.Errorf("started in sub/: %v, %d model requests, output:\n%s", err, asked, out)
	}
	line := strings.TrimSpace(out)
	if i := strings.Index(line, "logbook:"); i >= 0 {
		line = line[i:]
	}
	testreport.Line(t, fmt.Sprintf(claudeCodePkg+" started in a subdirectory: refused before the model was asked (exit error %v): %s", err, clip(line, 300)))
	if out, err := start(proj); err != nil || len(srv.Scripted()) == 0 {
		t.Errorf("started at the root: %v, %d model requests\n%s", err, len(srv.Scripted()), out)
	}
}
