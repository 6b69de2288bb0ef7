package hookevent

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestSettingsCoverEveryEvent: the ready-to-merge hooks block sends every
// known event to record-step (SessionEnd to logbook-seal --hook, which
// records it and seals), each with an explicit timeout.
func TestSettingsCoverEveryEvent(t *testing.T) {
	raw, err := os.ReadFile("../../hooks/claude-code/settings.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, name := range KnownEvents {
		entries := cfg.Hooks[name]
		if len(entries) != 1 || len(entries[0].Hooks) != 1 {
			t.Errorf("%s: want one hook entry, got %+v", name, entries)
			continue
		}
		h := entries[0].Hooks[0]
		want := "/.logbook/bin/record-step"
		if name == "SessionEnd" {
			want = "/.logbook/bin/logbook-seal --hook"
		}
		if h.Type != "command" || !strings.HasPrefix(h.Command, `"$CLAUDE_PROJECT_DIR"`) || !strings.HasSuffix(h.Command, want) || h.Timeout <= 0 {
			t.Errorf("%s: %+v", name, h)
		}
	}
	if len(cfg.Hooks) != len(KnownEvents) {
		t.Errorf("settings name %d events, want %d", len(cfg.Hooks), len(KnownEvents))
	}
}
