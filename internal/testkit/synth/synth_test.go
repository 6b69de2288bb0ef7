package synth

import (
	"bytes"
	"encoding/json"
	"testing"
)

func all() []Session {
	var out []Session
	for _, n := range Names {
		s, _ := Claude(n)
		out = append(out, s)
	}
	for _, h := range append(Harnesses[1:], "copilot-cli-snake") {
		s, _ := Dialect(h)
		out = append(out, s)
	}
	return out
}

// TestSessions: every payload is one JSON object with no duplicate keys,
// the instants never go back, and a second call gives the same bytes.
func TestSessions(t *testing.T) {
	for _, s := range all() {
		if len(s.Events) < 5 || len(s.Events) != len(s.Times) || s.ID == "" || (s.Config != nil && len(s.Config) != len(s.Events)) {
			t.Fatalf("%s: %d events, %d times, %d config, id %q", s.Name, len(s.Events), len(s.Times), len(s.Config), s.ID)
		}
		for i, ev := range s.Events {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(ev, &m); err != nil || bytes.ContainsAny(ev, "\n") {
				t.Fatalf("%s:%d: %v %q", s.Name, i+1, err, ev)
			}
			if !bytes.Contains(ev, []byte(s.ID)) {
				t.Errorf("%s:%d: session id missing", s.Name, i+1)
			}
			if i > 0 && s.Times[i] < s.Times[i-1] {
				t.Errorf("%s:%d: time goes back", s.Name, i+1)
			}
		}
	}
	a, b := all(), all()
	for i := range a {
		for j := range a[i].Events {
			if !bytes.Equal(a[i].Events[j], b[i].Events[j]) || a[i].Times[j] != b[i].Times[j] {
				t.Fatalf("%s:%d differs between calls", a[i].Name, j+1)
			}
		}
	}
}

func TestPayloads(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range ClaudePayloads() {
		if seen[p.Name] || !json.Valid(p.JSON) {
			t.Errorf("%s: duplicate or invalid", p.Name)
		}
		seen[p.Name] = true
	}
	for name, p := range Quirks() {
		if !json.Valid(bytes.TrimPrefix(p, []byte("\ufeff"))) {
			t.Errorf("%s: invalid", name)
		}
	}
}
