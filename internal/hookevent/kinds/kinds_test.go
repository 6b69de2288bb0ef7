package kinds

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOneTable: every tool the table names maps to a step kind of the
// format, and every harness event maps to a Claude Code event.
func TestOneTable(t *testing.T) {
	kinds := map[string]bool{"exec": true, "edit": true, "read": true, "write": true, "tool_call": true}
	seen := map[string]bool{}
	for _, tk := range toolKinds {
		if !kinds[tk.kind] || seen[tk.tool] {
			t.Errorf("tool %s: kind %q (or listed twice)", tk.tool, tk.kind)
		}
		seen[tk.tool] = true
	}
	seen = map[string]bool{}
	for _, e := range eventNames {
		name, info := e.name, e.eventInfo
		if seen[name] {
			t.Errorf("event %s listed twice", name)
		}
		seen[name] = true
		if info.canonical == "" || (info.kind != "" && !kinds[info.kind]) {
			t.Errorf("event %s: %+v", name, info)
		}
		if info.harness != "" && !KnownHarness(info.harness) {
			t.Errorf("event %s: harness %q", name, info.harness)
		}
	}
}

// TestSystemMessage: the session-start notice is one JSON object whatever
// the message holds (quotes, controls, invalid UTF-8, line separators).
func TestSystemMessage(t *testing.T) {
	for _, msg := range []string{"plain", `a "quoted" \ back`, "line\nbreak\x1b[31m", "bad \xff utf-8", "sep \u2028 \u2029"} {
		b := SystemMessage(msg)
		var out struct{ SystemMessage string }
		if err := json.Unmarshal(b, &out); err != nil || !json.Valid(b) || b[len(b)-1] != '\n' {
			t.Errorf("%q: %s (%v)", msg, b, err)
			continue
		}
		if want := strings.ToValidUTF8(msg, "\uFFFD"); out.SystemMessage != want {
			t.Errorf("%q came back as %q", want, out.SystemMessage)
		}
	}
	if !SessionStart("sessionStart") || !SessionStart("SessionStart") || SessionStart("PreToolUse") {
		t.Error("SessionStart")
	}
}
