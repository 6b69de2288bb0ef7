package hookconf

import (
	"slices"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/testkit/synth"
)

// TestDialectsEverywhere: a harness dialect is named once, in the
// recorder's registry (internal/hookevent/kinds/dialect.go, with its
// names, detection rules, start-message ability and policy-gate answer in
// kinds/dialect_NAME.go),
// and has its other pieces: an install spec (dialect_NAME.go here) that
// wires a session start and only events the recorder maps for it, and a
// synthesized session in its documented shape (internal/testkit/synth) whose every
// payload the recorder reads as that harness's, with the hook's --harness,
// without it, and (but for Claude Code, the harness no mark names) with any
// other harness's, as when a harness runs another's hook files. Adding a harness without one of them fails here, naming
// what is missing.
func TestDialectsEverywhere(t *testing.T) {
	t.Parallel()
	if got := Names(); !slices.Equal(got, kinds.Harnesses) {
		t.Errorf("install specs %v, harnesses %v", got, kinds.Harnesses)
	}
	for name := range dialects {
		if name != "claude-code-guard" && !kinds.KnownHarness(name) {
			t.Errorf("dialect_%s.go registers a harness the recorder does not know", name)
		}
	}
	for _, h := range kinds.Harnesses {
		spec := Lookup(h)
		if spec == nil {
			t.Errorf("%s: no install spec (dialect file)", h)
			continue
		}
		if kinds.Lookup(h).Gate.Form == kinds.GateNone {
			t.Errorf("%s: no answer for the policy gate (Gate in kinds/dialect_*.go)", h)
		}
		if !slices.ContainsFunc(spec.Events, func(e Event) bool { return kinds.SessionStart(e.Name) }) {
			t.Errorf("%s: install wires no session start", h)
		}
		for _, e := range spec.Events {
			if !mapsEvent(h, e.Name) {
				t.Errorf("%s: install wires %s, an event kinds/dialect_*.go does not map for it", h, e.Name)
			}
		}
		s, ok := synth.Dialect(h)
		if !ok || len(s.Events) == 0 {
			t.Errorf("%s: no synthesized session", h)
			continue
		}
		for i, p := range s.Events {
			hints := append([]string{""}, kinds.Harnesses...)
			if h == "claude-code" {
				// Its payloads carry no mark of their own: another
				// harness's --harness is believed (kinds.Detect).
				hints = []string{"", h}
			}
			for _, hinted := range hints {
				hint := hookevent.Hint{Harness: hinted}
				if s.Config != nil {
					hint.Event = s.Config[i]
				}
				ev, err := hookevent.ParseWith(p, hint)
				if err != nil {
					t.Errorf("%s payload %d: %v", h, i, err)
					continue
				}
				if !strings.HasPrefix(ev.Harness, h) {
					t.Errorf("%s payload %d, run as --harness %q: read as %q", h, i, hinted, ev.Harness)
				}
			}
		}
	}
}

// mapsEvent: the recorder knows event name of harness h: Claude Code's
// own (kinds.KnownEvents), a name h's dialect lists, or the Claude Code
// name one of those maps to (Grok Build's configuration names PascalCase
// events its payloads spell in snake_case).
func mapsEvent(h, name string) bool {
	if slices.Contains(kinds.KnownEvents, name) {
		return true
	}
	for _, e := range kinds.Lookup(h).Events {
		if e.Name == name || e.Canonical == name {
			return true
		}
	}
	return false
}
