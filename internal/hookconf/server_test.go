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

// TestUnixServerHooks: a Unix socket server gets record-step --server
// commands for every event (Claude Code's HTTP hooks reach TCP only), and
// --server values that would break the shell command are refused.
func TestUnixServerHooks(t *testing.T) {
	tg := ProjectTarget(Lookup("claude-code"))
	tg.Server = "unix:/run/logbook/hooks.sock"
	got, _, err := Add(nil, tg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte(`"http"`)) || bytes.Count(got, []byte("--server unix:/run/logbook/hooks.sock")) != len(tg.Spec.Events) {
		t.Fatalf("not a record-step command for each event:\n%s", got)
	}
	for _, bad := range []string{"unix:run/x.sock", "unix:/a b", "unix:/a;rm", "unix:/a$(x)", "unix:/" + strings.Repeat("a", 120)} {
		if CheckServer(bad) == nil {
			t.Errorf("CheckServer(%q) accepted", bad)
		}
	}
	if err := CheckServer("unix:/run/logbook/hooks.sock"); err != nil {
		t.Error(err)
	}
}

// TestManagedOnly: the switch is added, kept, or set to true whatever it
// held, and the result reads as managed-only.
func TestManagedOnly(t *testing.T) {
	for _, in := range []string{"{}", "{\n  \"a\": 1\n}\n", `{"allowManagedHooksOnly": false}`, `{"allowManagedHooksOnly": "yes"}`, `{"allowManagedHooksOnly": true}`} {
		got, err := ManagedOnly([]byte(in), "allowManagedHooksOnly")
		if err != nil || !IsManagedOnly(got, "allowManagedHooksOnly") {
			t.Errorf("%s -> %s (%v)", in, got, err)
		}
		var v map[string]any
		if json.Unmarshal(got, &v) != nil {
			t.Errorf("%s -> not JSON: %s", in, got)
		}
	}
	if _, err := ManagedOnly([]byte("[]"), "k"); err == nil {
		t.Error("a non-object was edited")
	}
}
