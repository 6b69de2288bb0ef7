package hookevent

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// payloads returns the project's own Claude Code payloads (internal/testkit/synth):
// one per event and quirk, and every line of its sessions.
func payloads(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, p := range synth.ClaudePayloads() {
		out[strings.TrimPrefix(p.Name, "claude-code/")] = p.JSON
	}
	for _, n := range []string{"short", "tool_heavy", "subagent"} {
		s, _ := synth.Claude(n)
		for i, ev := range s.Events {
			out[n+".jsonl:"+strconv.Itoa(i+1)] = ev
		}
	}
	if len(out) < 80 {
		t.Fatalf("found only %d payloads", len(out))
	}
	return out
}

// realPayloads returns every real Claude Code payload in the shared
// samples: single files and the lines of sequence files.
func realPayloads(t *testing.T) map[string][]byte {
	dir := corpora.Require(t, "samples/hooks/claude-code", "real Claude Code hook payloads (160)")
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		switch {
		case strings.HasSuffix(name, ".jsonl"):
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 16<<20)
			for i := 0; sc.Scan(); i++ {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					out[name+":"+strconv.Itoa(i+1)] = append([]byte(nil), sc.Bytes()...)
				}
			}
		case strings.HasSuffix(name, ".json"):
			out[name] = data
		}
	}
	if len(out) < 150 {
		t.Fatalf("found only %d sample payloads", len(out))
	}
	return out
}

// wantKind pins the step kind of named payloads, the project's own and
// the real samples' (where a name is in both, the kinds agree).
var wantKind = map[string]string{
	"pre-tool-use-bash.json": "exec", "post-tool-use-bash.json": "exec", "post-tool-use-failure-bash-127.json": "exec",
	"post-tool-use-failure-bash.json": "exec", "post-tool-use-edit.json": "edit", "post-tool-use-read.json": "read",
	"pre-tool-use-edit.json": "edit", "post-tool-use-multiedit.json": "edit", "pre-tool-use-write.json": "write",
	"post-tool-use-write.json": "write", "pre-tool-use-read.json": "read", "post-tool-use-read-legacy.json": "read",
	"pre-tool-use-grep.json": "tool_call", "pre-tool-use-mcp.json": "tool_call", "post-tool-use-webfetch.json": "tool_call",
	"user-prompt-submit.json": "note", "stop.json": "claim", "subagent-stop-general-purpose.json": "claim",
	"permission-request-bash-addrules.json": "gate", "session-start-startup.json": "note", "session-end-clear.json": "note",
	"notification-idle-prompt.json": "note", "pre-compact-auto.json": "note", "subagent-start.json": "note",
	"pre-tool-use-edit-lone-surrogate.json": "edit", "post-tool-use-edit-huge.json": "edit",
}

// TestSamples: every payload of the project's own becomes a step of a
// valid kind; no body string of 40 bytes or more shows up in the clear
// text; digests are where spec §8 puts them.
func TestSamples(t *testing.T) { checkPayloads(t, payloads(t)) }

// TestRealSamples holds the real payloads Claude Code sent to the same
// rules (conformance: needs the shared samples).
func TestRealSamples(t *testing.T) { checkPayloads(t, realPayloads(t)) }

func checkPayloads(t *testing.T, all map[string][]byte) {
	for name, p := range all {
		ev, err := Parse(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ev.Session == "" {
			t.Errorf("%s: no session id", name)
		}
		if k, ok := wantKind[name]; ok && ev.Step.Kind != k {
			t.Errorf("%s: kind %s, want %s", name, ev.Step.Kind, k)
		}
		clear := ev.Step.Summary + string(mustCanon(t, &ev.Step.Data))
		for _, body := range bodyStrings(t, p) {
			if strings.Contains(clear, body) {
				t.Errorf("%s: body text %.60q… appears in clear text", name, body)
			}
		}
		checkDigests(t, name, ev, p)
	}
}

func mustCanon(t *testing.T, v *strictjson.Value) []byte {
	b, err := jcs.Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bodyStrings lists the long strings inside the payload's bodies: tool
// responses, prompts, final messages, and tool inputs other than the
// fields recorded on purpose (command, path, pattern, url).
func bodyStrings(t *testing.T, p []byte) []string {
	v, err := strictjson.Parse(p, strictjson.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(v *strictjson.Value, key string)
	walk = func(v *strictjson.Value, key string) {
		switch v.Kind {
		case strictjson.String:
			if len(v.Str) >= 40 && !strings.Contains(v.Str, "\ufffd") && !recordedOnPurpose[key] {
				out = append(out, v.Str)
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
	for _, k := range []string{"tool_input", "tool_response", "prompt", "last_assistant_message", "error", "message", "custom_instructions"} {
		if b := v.Get(k); b != nil {
			walk(b, k)
		}
	}
	return out
}

var recordedOnPurpose = map[string]bool{"command": true, "file_path": true, "notebook_path": true, "path": true, "pattern": true, "url": true, "subagent_type": true}

func checkDigests(t *testing.T, name string, ev Event, p []byte) {
	v, _ := strictjson.Parse(p, strictjson.Options{Lenient: true})
	want := func(key string) string {
		b := v.Get(key)
		if b == nil {
			return ""
		}
		d, _ := digest.Body(b, p)
		return d
	}
	has := func(list []string, d string) bool {
		for _, x := range list {
			if x == d {
				return true
			}
		}
		return false
	}
	switch ev.Name {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure":
		if d := want("tool_input"); d != "" && !has(ev.Step.Inputs, d) {
			t.Errorf("%s: tool_input digest missing from inputsSha256", name)
		}
	}
	if ev.Name == "PostToolUse" {
		if d := want("tool_response"); d != "" && !has(ev.Step.Outputs, d) {
			t.Errorf("%s: tool_response digest missing from outputsSha256", name)
		}
	}
	if ev.Name == "UserPromptSubmit" && !has(ev.Step.Inputs, want("prompt")) {
		t.Errorf("%s: prompt digest missing", name)
	}
	if ev.Name == "Stop" && want("last_assistant_message") != "" && !has(ev.Step.Outputs, want("last_assistant_message")) {
		t.Errorf("%s: final message digest missing", name)
	}
}

// TestDigestRules pins spec §8's three digest forms on hand-made payloads.
func TestDigestRules(t *testing.T) {
	p := []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t",` +
		`"tool_input":{"b":1.50,"a":"\u00e9"},"tool_response":"plain text"}`)
	ev, err := Parse(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ev.Step.Inputs[0], digest.Bytes([]byte(`{"a":"é","b":1.5}`)); got != want {
		t.Errorf("object body: %s, want digest of its JCS form %s", got, want)
	}
	if got, want := ev.Step.Outputs[0], digest.Bytes([]byte("plain text")); got != want {
		t.Errorf("string body: digest of the string's bytes expected")
	}
	lone := []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"old_string":"\udc90x"}}`)
	ev, err = Parse(lone)
	if err != nil {
		t.Fatal(err)
	}
	raw := digest.Bytes([]byte(`{"old_string":"\udc90x"}`))
	if ev.Step.Inputs[0] != raw {
		t.Errorf("lone surrogate: want digest of the exact text")
	}
	if rd := ev.Step.Data.Get("rawDigests"); rd == nil || len(rd.Items) != 1 || rd.Items[0].Str != raw {
		t.Errorf("lone surrogate: data.rawDigests must list the raw digest")
	}
}

func TestUnknownAndMissing(t *testing.T) {
	for _, p := range []string{
		`{"session_id":"s","hook_event_name":"BrandNewEvent","whatever":[1,2]}`,
		`{"session_id":"s"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":null,"tool_input":null}`,
		`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Exit code 3\nboom"}`,
	} {
		ev, err := Parse([]byte(p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if ev.Step.Kind == "" || ev.Step.Summary == "" {
			t.Errorf("%s: empty step %+v", p, ev.Step)
		}
	}
	ev, _ := Parse([]byte(`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Exit code 3\nboom"}`))
	if c := ev.Step.Data.Get("exitCode"); c == nil || c.Str != "3" {
		t.Errorf("exit code not read from the error text")
	}
	for _, p := range []string{``, `[]`, `"x"`, `{`, "\xff"} {
		if _, err := Parse([]byte(p)); err == nil {
			t.Errorf("%q: want an error", p)
		}
	}
}

func TestRelPath(t *testing.T) {
	cases := [][3]string{
		{"/home/dev/p/src/a.go", "/home/dev/p", "src/a.go"},
		{"/home/dev/p", "/home/dev/p/", "."},
		{"/home/dev/pp/a.go", "/home/dev/p", "/home/dev/pp/a.go"},
		{`C:\Users\dev\Project\src\a.js`, `C:\Users\dev\Project`, "src/a.js"},
		{`c:\users\dev\project\a.js`, `C:\Users\dev\Project`, "a.js"},
	}
	for _, c := range cases {
		if got := relPath(c[0], c[1]); got != c[2] {
			t.Errorf("relPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// TestEveryEvent: each current Claude Code event, even with nothing but
// its name and session, becomes a step of the expected kind that names it.
func TestEveryEvent(t *testing.T) {
	want := map[string]string{"UserPromptSubmit": "note", "Stop": "claim", "SubagentStop": "claim",
		"PermissionRequest": "gate", "PermissionDenied": "gate", "PreToolUse": "tool_call",
		"PostToolUse": "tool_call", "PostToolUseFailure": "tool_call", "ElicitationResult": "gate", "PreSkillShellCommand": "exec"}
	for _, name := range KnownEvents {
		ev, err := Parse([]byte(`{"session_id":"s","hook_event_name":"` + name + `"}`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kind := want[name]
		if kind == "" {
			kind = "note"
		}
		if ev.Step.Kind != kind {
			t.Errorf("%s: kind %s, want %s", name, ev.Step.Kind, kind)
		}
		if e, _ := ev.Step.Data.GetString("event"); e != name || !strings.HasPrefix(ev.Step.Summary, name) {
			t.Errorf("%s: data.event %q, summary %q", name, e, ev.Step.Summary)
		}
	}
	if len(KnownEvents) != 34 {
		t.Errorf("%d known events, want the 34 of Claude Code 2.1.332's hooks", len(KnownEvents))
	}
}
