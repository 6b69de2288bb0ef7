package hookconf

import (
	"encoding/json"
	"strings"
	"testing"
)

// wired reads back, from what install writes for a project, each event's
// first handler.
func wired(t *testing.T, tg Target) map[string]map[string]any {
	t.Helper()
	text, _, err := Add(nil, tg)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	if err := json.Unmarshal(text, &cfg); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for ev, list := range cfg.Hooks {
		h := list[0]
		if !tg.Spec.Flat {
			h = list[0]["hooks"].([]any)[0].(map[string]any)
		}
		out[ev] = h
	}
	return out
}

// TestEveryEventSent: the events each harness sends today are wired.
// Claude Code 2.1.332's PreSkillShellCommand is recorded and, with a
// policy, gated like PreToolUse; Codex seals at SessionEnd (after the last
// Stop) and at Interrupt (an interrupted turn sends no Stop), within the
// 3 s Codex allows those hooks; Gemini's PreCompress is recorded.
func TestEveryEventSent(t *testing.T) {
	tg := ProjectTarget(Lookup("claude-code"))
	tg.Policy = " --policy p.json --policy-key k"
	h := wired(t, tg)["PreSkillShellCommand"]
	if cmd, _ := h["command"].(string); !strings.Contains(cmd, "record-step --harness claude-code --policy p.json") || !strings.Contains(cmd, "exit 2") {
		t.Errorf("claude-code PreSkillShellCommand: %v", h)
	}
	codex := wired(t, ProjectTarget(Lookup("codex")))
	for _, ev := range []string{"Stop", "Interrupt", "SessionEnd"} {
		cmd, _ := codex[ev]["command"].(string)
		if !strings.Contains(cmd, "logbook-seal --hook --harness codex") {
			t.Errorf("codex %s does not seal: %v", ev, codex[ev])
		}
		if codex[ev]["timeout"] != 3.0 {
			t.Errorf("codex %s: timeout %v, want 3", ev, codex[ev]["timeout"])
		}
	}
	h = wired(t, ProjectTarget(Lookup("gemini")))["PreCompress"]
	if cmd, _ := h["command"].(string); !strings.Contains(cmd, "record-step --harness gemini") {
		t.Errorf("gemini PreCompress: %v", h)
	}
}
