package hookevent

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// dialects lists the harnesses other than Claude Code whose payloads the
// tests read (every dialect of kinds' registry); realDirs, the folders of
// the shared samples that hold real ones (conformance, when present).
var (
	dialects = kinds.Harnesses[1:]
	realDirs = map[string]string{"codex": "codex", "copilot-cli": "copilot-cli", "vscode": "vscode-copilot", "grok": "grok"}
)

type fixture struct {
	name    string
	payload []byte
}

// dialectPayloads returns the project's own payloads of a harness: every
// event of its synthesized session(s) and its quirk payloads, a byte order
// mark stripped as record-step does.
func dialectPayloads(t *testing.T, harness string) []fixture {
	var out []fixture
	names := []string{harness}
	if harness == "copilot-cli" {
		names = append(names, "copilot-cli-snake")
	}
	for _, n := range names {
		s, _ := synth.Dialect(n)
		for i, ev := range s.Events {
			out = append(out, fixture{n + ".jsonl:" + strconv.Itoa(i+1), ev})
		}
	}
	for _, name := range synth.QuirkNames() {
		if strings.HasPrefix(name, harness+"/") {
			out = append(out, fixture{name, cli.StripBOM(synth.Quirks()[name])})
		}
	}
	if len(out) < 5 {
		t.Fatalf("%s: only %d payloads", harness, len(out))
	}
	return out
}

// realPayloads reads the real payloads of a harness from the shared
// samples: single files and the lines of sequence files.
func realDialectPayloads(t *testing.T, dir string) []fixture {
	root := corpora.Require(t, "samples/hooks/"+dir, "real "+dir+" hook payloads")
	var out []fixture
	files, _ := filepath.Glob(filepath.Join(root, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := dir + "/" + filepath.Base(f)
		switch {
		case strings.HasSuffix(f, ".jsonl"):
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 16<<20)
			for i := 1; sc.Scan(); i++ {
				out = append(out, fixture{name + ":" + strconv.Itoa(i), append([]byte(nil), sc.Bytes()...)})
			}
		case strings.HasSuffix(f, ".json"):
			out = append(out, fixture{name, cli.StripBOM(data)})
		}
	}
	return out
}

// TestDialects: every fixture payload of every harness becomes a step that
// links and passes the record's step shape, names the harness that sent
// it (from its shape, and with the --harness its installed configuration
// passes), keeps no body in clear text, and digests its bodies.
func TestDialects(t *testing.T) {
	for _, harness := range dialects {
		for _, fx := range dialectPayloads(t, harness) {
			checkDialect(t, harness, fx)
		}
	}
}

// TestRealDialects holds the real payloads of the harnesses the shared
// samples have to the same rules (conformance).
func TestRealDialects(t *testing.T) {
	for harness, dir := range realDirs {
		t.Run(harness, func(t *testing.T) {
			for _, fx := range realDialectPayloads(t, dir) {
				checkDialect(t, harness, fx)
			}
		})
	}
}

func checkDialect(t *testing.T, harness string, fx fixture) {
	t.Helper()
	ev, err := ParseWith(fx.payload, Hint{Harness: harness})
	if err != nil {
		t.Errorf("%s: %v", fx.name, err)
		return
	}
	if ev.Session == "" || ev.Name == "" {
		t.Errorf("%s: session %q event %q", fx.name, ev.Session, ev.Name)
	}
	if h, _, _ := strings.Cut(ev.Harness, " "); h != harness {
		t.Errorf("%s: harness %q, want %s", fx.name, ev.Harness, harness)
	}
	// Without the flag the shape alone may fail to tell, but then
	// it says "unknown", never another harness's name.
	if bare, err := Parse(fx.payload); err != nil || (bare.Harness != ev.Harness && bare.Harness != "unknown") {
		t.Errorf("%s: without --harness the shape says %q, want %q", fx.name, bare.Harness, ev.Harness)
	}
	ev.Step.At = "2026-01-01T00:00:00Z"
	line, _, err := chain.Link(ev.Step, 0, "")
	if err != nil {
		t.Fatalf("%s: %v", fx.name, err)
	}
	if d := record.CheckStep(line); d != "" {
		t.Errorf("%s: %s", fx.name, d)
	}
	clear := ev.Step.Summary + string(mustCanon(t, &ev.Step.Data))
	for _, body := range dialectBodies(t, fx.payload) {
		if strings.Contains(clear, body) {
			t.Errorf("%s: body text %.60q… appears in clear text", fx.name, body)
		}
	}
	if strings.ContainsAny(ev.Step.Summary, "\r\n") {
		t.Errorf("%s: summary spans lines", fx.name)
	}
	if kinds.ToolEvent(ev.Name) && len(ev.Step.Inputs) == 0 {
		t.Errorf("%s: a tool call without an input digest", fx.name)
	}
	if (ev.Name == "PostToolUse" || ev.Name == "PostToolUseFailure") && len(ev.Step.Outputs) == 0 && !bytes.Contains(fx.payload, []byte(`"afterFileEdit"`)) {
		t.Errorf("%s: a finished tool call without an output digest", fx.name)
	}
	if ts := ev.Step.Data.Get("harnessTimestamp"); (bytes.Contains(fx.payload, []byte(`"timestamp"`))) != (ts != nil) {
		t.Errorf("%s: the payload's own timestamp is not kept beside ours", fx.name)
	}
}

// dialectBodies lists the long strings inside a payload's bodies, in every
// dialect's spelling, JSON-text strings decoded; the fields recorded on
// purpose (command, path, pattern, url) are left out, except a patch.
func dialectBodies(t *testing.T, p []byte) []string {
	v, err := strictjson.Parse(p, strictjson.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	onPurpose := map[string]bool{"command": true, "file_path": true, "path": true, "filePath": true, "pattern": true, "url": true, "target_file": true, "absolute_path": true}
	var walk func(v *strictjson.Value, key string)
	walk = func(v *strictjson.Value, key string) {
		switch v.Kind {
		case strictjson.String:
			if len(v.Str) >= 40 && !strings.Contains(v.Str, "\ufffd") && (!onPurpose[key] || strings.Contains(v.Str, "*** Begin Patch")) {
				out = append(out, v.Str)
			}
			if dv, err := strictjson.Parse([]byte(v.Str), strictjson.Options{Lenient: true}); err == nil && (dv.Kind == strictjson.Object || dv.Kind == strictjson.Array) {
				walk(dv, key)
			}
		case strictjson.Array:
			for i := range v.Items {
				walk(&v.Items[i], key)
			}
		case strictjson.Object:
			for i := range v.Members {
				walk(&v.Members[i].Value, v.Members[i].Key)
			}
		}
	}
	for _, k := range []string{"tool_input", "toolInput", "toolArgs", "tool_response", "toolResult", "tool_result", "tool_output",
		"result_json", "output", "prompt", "prompt_response", "last_assistant_message", "lastAssistantMessage",
		"last-assistant-message", "input-messages", "initialPrompt", "text", "content", "edits", "message", "details",
		"error", "errorDetails", "summary", "task"} {
		if b := v.Get(k); b != nil {
			walk(b, k)
		}
	}
	return out
}

func fixturePayload(t *testing.T, name string) []byte {
	b, ok := synth.Quirks()[name]
	if !ok {
		t.Fatalf("no payload %s in synth.Quirks", name)
	}
	return cli.StripBOM(b)
}

// TestDialectKinds pins the event and kind of one payload per quirk.
func TestDialectKinds(t *testing.T) {
	cases := []struct {
		file, event, kind, tool string
	}{
		{"codex/notify-agent-turn-complete.json", "Stop", "claim", ""},
		{"codex/pre-tool-use-apply-patch.json", "PreToolUse", "edit", "apply_patch"},
		{"codex/stop-null-message.json", "Stop", "claim", ""},
		{"gemini/after-tool-error.json", "PostToolUseFailure", "exec", "run_shell_command"},
		{"gemini/after-agent.json", "Stop", "claim", ""},
		{"cursor/pre-tool-use-newline-id.json", "PreToolUse", "exec", "Shell"},
		{"cursor/before-mcp-execution-json-string.json", "PreToolUse", "tool_call", "create_issue"},
		{"cursor/after-mcp-execution-json-string.json", "PostToolUse", "tool_call", "create_issue"},
		{"cursor/after-file-edit.json", "PostToolUse", "edit", ""},
		{"cursor/before-submit-prompt-bom-windows.json", "UserPromptSubmit", "note", ""},
		{"copilot-cli/agent-stop.json", "Stop", "claim", ""},
		{"copilot-cli/pre-tool-use-snake-case.json", "PreToolUse", "exec", "bash"},
		{"copilot-cli/post-tool-use-snake-case-denied.json", "PostToolUseFailure", "exec", "bash"},
		{"copilot-cli/notification.json", "Notification", "note", ""},
		{"vscode/session-start.json", "SessionStart", "note", ""},
		{"vscode/pre-compact.json", "PreCompact", "note", ""},
		{"grok/pre-tool-use-run-terminal-command.json", "PreToolUse", "exec", "run_terminal_command"},
		{"grok/post-tool-use-byte-array-output.json", "PostToolUse", "exec", "run_terminal_command"},
		{"grok/stop-failure.json", "StopFailure", "note", ""},
	}
	for _, c := range cases {
		ev, err := Parse(fixturePayload(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		tool, _ := ev.Step.Data.GetString("tool")
		if ev.Name != c.event || ev.Step.Kind != c.kind || tool != c.tool {
			t.Errorf("%s: %s %s %q, want %s %s %q", c.file, ev.Name, ev.Step.Kind, tool, c.event, c.kind, c.tool)
		}
	}
}

// TestQuirks pins each dialect's quirks one by one.
func TestQuirks(t *testing.T) {
	parse := func(file string) (Event, []byte) {
		p := fixturePayload(t, file)
		ev, err := Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		return ev, p
	}
	get := func(ev Event, k string) string { s, _ := ev.Step.Data.GetString(k); return s }

	// Cursor: tool_use_id with a newline inside is kept exactly (pre and
	// post events pair on it), never in the summary.
	ev, p := parse("cursor/pre-tool-use-newline-id.json")
	if !bytes.Contains(p, []byte(`"call_s3\nctc_s3"`)) || get(ev, "toolUseId") != "call_s3\nctc_s3" || ev.Harness != "cursor 2.1.42" || ev.Cwd != "/home/dev/sum" {
		t.Errorf("cursor: toolUseId %q harness %q cwd %q", get(ev, "toolUseId"), ev.Harness, ev.Cwd)
	}
	// Cursor: an MCP input sent as JSON text is digested as the value it
	// holds, and listed as such; so is a result.
	ev, _ = parse("cursor/before-mcp-execution-json-string.json")
	want := digest.Bytes([]byte(`{"labels":["bug"],"title":"sum subtracted"}`))
	if ev.Step.Inputs[0] != want {
		t.Errorf("cursor MCP input: digest %s, want the decoded value's %s", ev.Step.Inputs[0], want)
	}
	if d := ev.Step.Data.Get("decodedDigests"); d == nil || d.Items[0].Str != want {
		t.Errorf("cursor MCP input: data.decodedDigests %v", d)
	}
	if get(ev, "command") != "" {
		t.Error("cursor MCP: the server's command recorded as the call's")
	}
	ev, _ = parse("cursor/after-mcp-execution-json-string.json")
	if want := digest.Bytes([]byte(`{"content":[{"text":"issue 4 created","type":"text"}]}`)); ev.Step.Outputs[0] != want {
		t.Errorf("cursor MCP result: %s, want %s", ev.Step.Outputs[0], want)
	}
	// Cursor, Windows: a BOM before the payload, cwd from workspace_roots.
	if raw := synth.Quirks()["cursor/before-submit-prompt-bom-windows.json"]; !bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		t.Error("the Windows payload lost its byte order mark")
	}
	ev, _ = parse("cursor/before-submit-prompt-bom-windows.json")
	if ev.Cwd != `c:\Users\dev\sum` {
		t.Errorf("cursor windows cwd %q", ev.Cwd)
	}
	// Codex: apply_patch's command is the patch: only its files are kept.
	ev, _ = parse("codex/pre-tool-use-apply-patch.json")
	if get(ev, "command") != "" || get(ev, "path") != "src/sum.js" || get(ev, "turnId") != "1" {
		t.Errorf("codex apply_patch: command %q path %q turn %q", get(ev, "command"), get(ev, "path"), get(ev, "turnId"))
	}
	if ps := ev.Step.Data.Get("paths"); ps == nil || len(ps.Items) != 2 || ps.Items[1].Str != "test/sum.test.js" {
		t.Errorf("codex apply_patch: paths %v", ps)
	}
	// Codex: a null transcript_path and a null final message are values,
	// not errors.
	ev, _ = parse("codex/session-start-null-transcript.json")
	if ev.Harness != "codex" || get(ev, "model") != "gpt-5.1-codex" {
		t.Errorf("codex session start: %q %q", ev.Harness, get(ev, "model"))
	}
	// Codex notify: kebab-case keys, the turn's prompts as inputs, the
	// final message as output.
	ev, _ = parse("codex/notify-agent-turn-complete.json")
	if ev.Session != "0199c0de-5a11-7e57-8d0c-00000000000a" || ev.Cwd != "/home/dev/sum" || get(ev, "harnessEvent") != "agent-turn-complete" {
		t.Errorf("codex notify: %+v", ev)
	}
	if ev.Step.Outputs[0] != digest.Bytes([]byte("sum subtracted instead of adding; src/sum.js now returns a + b and the test passes.")) || len(ev.Step.Inputs) != 1 {
		t.Errorf("codex notify digests %v %v", ev.Step.Inputs, ev.Step.Outputs)
	}
	// Gemini: tool_response {llmContent, returnDisplay, error}: a failure
	// inside the response makes the call a PostToolUseFailure whose output
	// is the whole response.
	ev, p = parse("gemini/after-tool-error.json")
	var g struct {
		Resp json.RawMessage `json:"tool_response"`
	}
	json.Unmarshal(p, &g)
	if rv, _ := strictjson.Parse(g.Resp, strictjson.Options{}); ev.Step.Outputs[0] != mustDigest(rv, g.Resp) {
		t.Error("gemini failure: output is not the tool_response's digest")
	}
	// Grok: tool output as an array of byte values: the second output
	// digest is the SHA-256 of those bytes.
	ev, p = parse("grok/post-tool-use-byte-array-output.json")
	var gr struct {
		ToolResult struct {
			Output []int `json:"output"`
		} `json:"toolResult"`
	}
	if err := json.Unmarshal(p, &gr); err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, len(gr.ToolResult.Output))
	for i, b := range gr.ToolResult.Output {
		raw[i] = byte(b)
	}
	sum := sha256.Sum256(raw)
	if len(ev.Step.Outputs) != 2 || ev.Step.Outputs[1] != hex.EncodeToString(sum[:]) {
		t.Errorf("grok byte output: outputs %v, want the bytes' digest %x second", ev.Step.Outputs, sum)
	}
	if n := ev.Step.Data.Get("outputBytes"); n == nil || n.Str != strconv.Itoa(len(raw)) {
		t.Errorf("grok byte output: outputBytes %v, want %d", n, len(raw))
	}
	// Grok sends camelCase keys and snake_case event names; a Claude-
	// configured record-step gets them too and must still name Grok.
	ev, err := ParseWith(fixturePayload(t, "grok/stop.json"), Hint{Harness: "claude-code"})
	if err != nil || ev.Harness != "grok" || ev.Name != "Stop" {
		t.Errorf("grok via a claude-code hook: %q %q %v", ev.Harness, ev.Name, err)
	}
	// Copilot CLI camelCase: no event name; the shape names it, and the
	// installed --event agrees; the millisecond timestamp is kept as a number.
	cam, _ := synth.Dialect("copilot-cli")
	for i, p := range cam.Events {
		ev, _ := Parse(p)
		hinted, _ := ParseWith(p, Hint{Harness: "copilot-cli", Event: cam.Config[i]})
		if get(ev, "harnessEvent") != cam.Config[i] || get(hinted, "harnessEvent") != cam.Config[i] {
			t.Errorf("copilot line %d: inferred %q, hinted %q, want %q", i+1, get(ev, "harnessEvent"), get(hinted, "harnessEvent"), cam.Config[i])
		}
		if ts := ev.Step.Data.Get("harnessTimestamp"); ts == nil || ts.Kind != strictjson.Number {
			t.Errorf("copilot line %d: timestamp not kept as a number", i+1)
		}
	}
	// VS Code: ISO timestamp kept as text.
	ev, p = parse("vscode/user-prompt-submit.json")
	var vs struct {
		TS string `json:"timestamp"`
	}
	json.Unmarshal(p, &vs)
	if get(ev, "harnessTimestamp") != vs.TS || vs.TS == "" || ev.Harness != "vscode" {
		t.Errorf("vscode: %q %q", get(ev, "harnessTimestamp"), ev.Harness)
	}
}

// TestRealCopilotSession: the real Copilot CLI session in the shared
// samples, every event named from its fields (conformance).
func TestRealCopilotSession(t *testing.T) {
	b, err := os.ReadFile(corpora.Require(t, "samples/hooks/copilot-cli/sequence-b0ff98c0.jsonl", "a real Copilot CLI session (4 events)"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(ev Event, k string) string { s, _ := ev.Step.Data.GetString(k); return s }
	real := []string{"userPromptSubmitted", "sessionStart", "agentStop", "sessionEnd"}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for i := 0; sc.Scan(); i++ {
		ev, err := Parse(sc.Bytes())
		if err != nil || get(ev, "harnessEvent") != real[i] {
			t.Errorf("real copilot line %d: %q, want %q (%v)", i+1, get(ev, "harnessEvent"), real[i], err)
		}
	}
}

func mustDigest(v *strictjson.Value, src []byte) string {
	d, _ := digest.Body(v, src)
	return d
}

// TestHarnessOf pins the shape rules for payloads that only differ in the
// harness that sent them.
func TestHarnessOf(t *testing.T) {
	cases := []struct {
		payload, hint, want string
	}{
		{`{"session_id":"s","hook_event_name":"Stop"}`, "", "claude-code"},
		{`{"session_id":"s","hook_event_name":"Stop"}`, "codex", "codex"},
		{`{"session_id":"s","hook_event_name":"Stop","turn_id":"1"}`, "", "codex"},
		{`{"session_id":"s","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:00Z"}`, "", "gemini"},
		{`{"session_id":"s","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z"}`, "gemini", "gemini"},
		{`{"session_id":"s","hook_event_name":"SessionStart","timestamp":"2026-01-01T00:00:00Z"}`, "claude-code", "unknown"},
		{`{"session_id":"s","hook_event_name":"SessionStart","timestamp":"t","transcript_path":"c:\\x\\GitHub.copilot-chat\\t.jsonl"}`, "copilot-cli", "vscode"},
		{`{"session_id":"s","hook_event_name":"Stop","timestamp":"t","transcript_path":"/home/dev/.copilot/session-state/s/events.jsonl"}`, "vscode", "copilot-cli"},
		{`{"sessionId":"s","timestamp":1,"prompt":"x"}`, "", "copilot-cli"},
		{`{"hookEventName":"stop","sessionId":"s"}`, "cursor", "grok"},
		{`{"hookEventName":"PreToolUse","sessionId":"s"}`, "", "vscode"},
		{`{"conversation_id":"s","hook_event_name":"stop"}`, "claude-code", "cursor"},
		{`{"thread-id":"s","type":"agent-turn-complete"}`, "", "codex"},
		{`{"session_id":"s"}`, "made-up", "claude-code"},
	}
	for _, c := range cases {
		ev, err := ParseWith([]byte(c.payload), Hint{Harness: c.hint})
		if err != nil || ev.Harness != c.want {
			t.Errorf("%s (hint %q): %q, want %q (%v)", c.payload, c.hint, ev.Harness, c.want, err)
		}
	}
}
