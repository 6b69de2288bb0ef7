package hookconf

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

var update = flag.Bool("update", false, "rewrite hooks/<harness>/ from the install specs")

const fixtures = "../../testdata/install"

// configs are real-looking configurations with hooks and settings of their
// own, by the harness whose file they stand for.
var configs = map[string][]string{
	"claude-code": {"claude-code-settings.json", "claude-code-settings.local.json", "claude-code-compact.json",
		"claude-code-crlf-tabs.json", "claude-code-old-logbook-block.json"},
	"codex":       {"codex-hooks.json"},
	"gemini":      {"gemini-settings.json"},
	"cursor":      {"cursor-hooks.json"},
	"copilot-cli": {"copilot-cli-hooks.json"},
	"vscode":      {"vscode-hooks.json"},
	"grok":        {"grok-hooks.json"},
}

func read(t *testing.T, name string) []byte {
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRoundTrip: install adds to a real-looking file without touching any
// other byte; a second install changes nothing; uninstall gives back the
// original byte for byte. Also on a file that does not exist: uninstall
// deletes what install created.
func TestRoundTrip(t *testing.T) {
	for _, harness := range Names() {
		tg := ProjectTarget(Lookup(harness))
		files := append([]string{""}, configs[harness]...)
		for _, f := range files {
			var orig []byte
			if f != "" {
				orig = read(t, f)
			}
			added, _, err := Add(orig, tg)
			if err != nil {
				t.Fatalf("%s %s: %v", harness, f, err)
			}
			if bytes.Equal(added, orig) && !strings.Contains(f, "old-logbook") {
				t.Errorf("%s %s: install changed nothing", harness, f)
			}
			again, _, err := Add(added, tg)
			if err != nil || !bytes.Equal(again, added) {
				t.Errorf("%s %s: second install changed the file (%v)", harness, f, err)
			}
			keepsOriginal(t, harness+" "+f, orig, added)
			removed, n, gone, err := Remove(added, tg)
			if err != nil {
				t.Fatalf("%s %s: uninstall: %v", harness, f, err)
			}
			switch {
			case f == "":
				if !gone || n != len(Lookup(harness).Events) {
					t.Errorf("%s: uninstall of a file install created: gone=%v, %d removed", harness, gone, n)
				}
			case gone || !bytes.Equal(removed, orig):
				t.Errorf("%s %s: uninstall did not give back the original (gone=%v):\n%s", harness, f, gone, UnifiedDiff(f, orig, true, removed, true))
			}
			if f != "" && !strings.Contains(f, "old-logbook") && n != len(Lookup(harness).Events) {
				t.Errorf("%s %s: uninstall removed %d entries, install added %d", harness, f, n, len(Lookup(harness).Events))
			}
		}
	}
}

// keepsOriginal: every top-level setting and every existing hook handler
// of the original is still in the installed file, unchanged.
func keepsOriginal(t *testing.T, name string, orig, added []byte) {
	if len(orig) == 0 {
		return
	}
	o, err := strictjson.Parse(orig, strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := strictjson.Parse(added, strictjson.Options{})
	if err != nil {
		t.Fatalf("%s: installed file is not JSON: %v", name, err)
	}
	canon := func(v *strictjson.Value) string {
		b, err := jcs.Append(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, m := range o.Members {
		got := a.Get(m.Key)
		if got == nil {
			t.Errorf("%s: setting %q lost", name, m.Key)
			continue
		}
		if m.Key != "hooks" {
			if canon(got) != canon(&m.Value) {
				t.Errorf("%s: setting %q changed", name, m.Key)
			}
			continue
		}
		for _, ev := range m.Value.Members {
			list := got.Get(ev.Key)
			if list == nil || len(list.Items) < len(ev.Value.Items) {
				t.Errorf("%s: hooks of %s lost", name, ev.Key)
				continue
			}
			for i := range ev.Value.Items {
				if canon(&list.Items[i]) != canon(&ev.Value.Items[i]) {
					t.Errorf("%s: existing hook %s[%d] changed", name, ev.Key, i)
				}
			}
		}
	}
}

// TestOldBlockLeftAlone: a hooks block merged by hand before install
// existed already runs record-step: install adds nothing beside it (no
// event is recorded twice) and says so; uninstall leaves it too.
func TestOldBlockLeftAlone(t *testing.T) {
	orig := read(t, "claude-code-old-logbook-block.json")
	tg := ProjectTarget(Lookup("claude-code"))
	added, notes, err := Add(orig, tg)
	if err != nil {
		t.Fatal(err)
	}
	// The events the old block wires are left as they are (one note
	// each); the events Claude Code added since are wired beside them.
	parse := func(b []byte) *strictjson.Value {
		v, err := strictjson.Parse(b, strictjson.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	canon := func(v *strictjson.Value) string {
		b, _ := jcs.Append(nil, v)
		return string(b)
	}
	before, after := parse(orig).Get("hooks"), parse(added).Get("hooks")
	for _, ev := range before.Members {
		if canon(after.Get(ev.Key)) != canon(&ev.Value) {
			t.Errorf("%s: the old block's hooks changed", ev.Key)
		}
	}
	if len(notes) != len(before.Members) {
		t.Errorf("%d notes, want one per event already wired: %q", len(notes), notes)
	}
	if len(after.Members) != len(Lookup("claude-code").Events) {
		t.Errorf("%d events wired after install, want %d", len(after.Members), len(Lookup("claude-code").Events))
	}
	if _, n, _, _ := Remove(orig, tg); n != 0 {
		t.Errorf("uninstall removed %d handlers it did not add", n)
	}
}

// TestEmptyHooksObject: the one case without an exact round trip: a
// "hooks": {} that held nothing before is taken out with install's last
// entry (uninstall cannot tell it from one install created).
func TestEmptyHooksObject(t *testing.T) {
	orig := read(t, "claude-code-empty-hooks.json")
	tg := ProjectTarget(Lookup("claude-code"))
	added, _, err := Add(orig, tg)
	if err != nil {
		t.Fatal(err)
	}
	removed, _, _, _ := Remove(added, tg)
	if want := "{\n  \"model\": \"opus\"\n}\n"; string(removed) != want {
		t.Errorf("got %q, want %q", removed, want)
	}
}

// TestMalformedRefused: a file install cannot read as one strict JSON
// object, or whose hooks are not shaped as the harness's, is refused with
// a reason, by install and uninstall alike.
func TestMalformedRefused(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "bad-*"))
	if len(files) < 8 {
		t.Fatalf("%d malformed fixtures", len(files))
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, h := range Names() {
			tg := ProjectTarget(Lookup(h))
			if strings.Contains(f, "event-object") && !wires(Lookup(h), "Stop") {
				continue // its "Stop" is no event of this harness: not install's business
			}
			if _, _, err := Add(b, tg); err == nil {
				t.Errorf("%s %s: install accepted it", h, filepath.Base(f))
			}
			if _, n, _, err := Remove(b, tg); err == nil && n > 0 {
				t.Errorf("%s %s: uninstall edited it", h, filepath.Base(f))
			}
		}
	}
}

func wires(s *Spec, event string) bool {
	for _, e := range s.Events {
		if e.Name == event {
			return true
		}
	}
	return false
}

// TestReadyToUseConfigs: hooks/<harness>/ holds exactly what install
// writes for a project, under the name of its project file (go test
// ./internal/hookconf -update rewrites them).
func TestReadyToUseConfigs(t *testing.T) {
	for _, h := range Names() {
		want, _, err := Add(nil, ProjectTarget(Lookup(h)))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("../../hooks", h, filepath.Base(Lookup(h).ProjectFile))
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from what install writes (%v); run go test ./internal/hookconf -update", path, err)
		}
	}
}

// TestEventsUnderstood: every event install wires is one record-step
// understands (maps to a Claude Code event with a known meaning), the
// Claude Code configuration covers every Claude Code event, every harness
// seals on one event (Codex on three), and the payload-less dialect passes
// --event.
func TestEventsUnderstood(t *testing.T) {
	known := map[string]bool{"AgentResponse": true, "ErrorOccurred": true, "StopCancelled": true}
	for _, e := range hookevent.KnownEvents {
		known[e] = true
	}
	for _, h := range Names() {
		spec := Lookup(h)
		seals := 0
		for _, e := range spec.Events {
			canon, _ := hookevent.Canonical(e.Name)
			if !known[canon] && !kinds.Known(canon) {
				t.Errorf("%s: event %s maps to %q, which record-step does not name", h, e.Name, canon)
			}
			if e.Seal {
				seals++
			}
			cmd := ProjectTarget(spec).Command(e)
			if !strings.Contains(cmd, "--harness "+h) || (e.Named && !strings.Contains(cmd, "--event "+e.Name)) {
				t.Errorf("%s %s: command %q", h, e.Name, cmd)
			}
		}
		// Codex seals at each turn's end (Stop), at an interrupted
		// turn's (Interrupt) and at SessionEnd, which comes after the
		// last Stop; every other harness at its session's end only.
		if want := map[string]int{"codex": 3}[h]; seals != max(want, 1) {
			t.Errorf("%s: %d sealing events, want %d", h, seals, max(want, 1))
		}
		if !hookevent.KnownHarness(h) {
			t.Errorf("%s: not a harness name record-step knows", h)
		}
	}
	got := map[string]bool{}
	for _, e := range Lookup("claude-code").Events {
		got[e.Name] = true
	}
	// Hooks of these replace Claude Code's own behaviour, or fire for
	// each piece of streamed text: understood, not wired (spec.go).
	unwired := map[string]bool{"WorktreeCreate": true, "WorktreeRemove": true, "MessageDisplay": true}
	for _, e := range hookevent.KnownEvents {
		if got[e] == unwired[e] {
			t.Errorf("claude-code: %s wired: %v", e, got[e])
		}
	}
}

func TestDiff(t *testing.T) {
	d := UnifiedDiff("f", []byte("a\nb\nc\n"), true, []byte("a\nB\nc\nd\n"), true)
	want := "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n"
	if d != want {
		t.Errorf("got\n%s\nwant\n%s", d, want)
	}
}
