package hookconf

import (
	"slices"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/synth"
)

// TestDialectsEverywhere: a harness dialect is named once, in the
// recorder's list (kinds.Harnesses), and has its pieces: an install spec
// (dialect_NAME.go here) that wires a session start, a synthesized session
// in its documented shape (internal/synth) whose every payload the
// recorder reads as that harness's. Adding a harness without one of them
// fails here, naming what is missing.
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
		if !slices.ContainsFunc(spec.Events, func(e Event) bool { return kinds.SessionStart(e.Name) }) {
			t.Errorf("%s: install wires no session start", h)
		}
		s, ok := synth.Dialect(h)
		if !ok || len(s.Events) == 0 {
			t.Errorf("%s: no synthesized session", h)
			continue
		}
		for i, p := range s.Events {
			hint := hookevent.Hint{Harness: h}
			if s.Config != nil {
				hint.Event = s.Config[i]
			}
			ev, err := hookevent.ParseWith(p, hint)
			if err != nil {
				t.Errorf("%s payload %d: %v", h, i, err)
				continue
			}
			if !strings.HasPrefix(ev.Harness, h) {
				t.Errorf("%s payload %d read as %q", h, i, ev.Harness)
			}
		}
	}
}
