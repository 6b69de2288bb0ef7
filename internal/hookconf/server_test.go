package hookconf

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestServerHooks: install --server writes Claude Code HTTP hooks to the
// server's hook route (a record-step --server command for SessionStart
// and Setup, which take no HTTP hook), no logbook-seal; a second install
// changes nothing; uninstall gives the file back byte for byte.
func TestServerHooks(t *testing.T) {
	for _, harness := range Names() {
		tg := ProjectTarget(Lookup(harness))
		tg.Server = "http://127.0.0.1:8421/"
		orig := []byte("{\n  \"model\": \"x\"\n}\n")
		got, notes, err := Add(orig, tg)
		if err != nil || len(notes) > 0 {
			t.Fatalf("%s: %v %v", harness, err, notes)
		}
		var cfg map[string]any
		if err := json.Unmarshal(got, &cfg); err != nil {
			t.Fatalf("%s: %v\n%s", harness, err, got)
		}
		if bytes.Contains(got, []byte("logbook-seal --hook")) {
			t.Errorf("%s: a server install runs logbook-seal:\n%s", harness, got)
		}
		if harness == "claude-code" {
			hooks := cfg["hooks"].(map[string]any)
			for name, v := range hooks {
				h := v.([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
				if name == "SessionStart" || name == "Setup" {
					if h["type"] != "command" || !strings.Contains(h["command"].(string), "record-step --harness claude-code --server http://127.0.0.1:8421") {
						t.Errorf("%s: %v", name, h)
					}
					continue
				}
				if h["type"] != "http" || h["url"] != "http://127.0.0.1:8421/v1/hooks/claude-code" {
					t.Errorf("%s: %v", name, h)
				}
			}
		} else if !bytes.Contains(got, []byte("--server http://127.0.0.1:8421")) {
			t.Errorf("%s: no record-step --server:\n%s", harness, got)
		}
		again, notes, err := Add(got, tg)
		if err != nil || len(notes) > 0 || !bytes.Equal(again, got) {
			t.Errorf("%s: a second install changed the file (%v %v)", harness, err, notes)
		}
		back, removed, _, err := Remove(got, tg)
		if err != nil || removed == 0 || !bytes.Equal(back, orig) {
			t.Errorf("%s: uninstall: %v, %d removed\n%s", harness, err, removed, back)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "http://x y", "http://x/?a", `http://x"`, "http://$(id)"} {
		if CheckServer(bad) == nil {
			t.Errorf("CheckServer(%q) accepted", bad)
		}
	}
}
