package synth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logbook-project/logbook/internal/corpora"
)

// TestClaudeKeysLikeReal holds the synthesized Claude Code payloads to the
// real ones Claude Code sent (conformance: the shared samples). For each
// event, every key a synthesized payload has appears in some real payload
// of that event, in the same relative order; agent_id and agent_type,
// which real payloads carry only inside a sub-agent, are allowed anywhere
// after permission_mode.
func TestClaudeKeysLikeReal(t *testing.T) {
	dir := corpora.Require(t, "samples/hooks/claude-code", "synthesized payloads against real Claude Code key order")
	real := map[string][][]string{} // event → key lists of real payloads
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, keys := eventKeys(t, b)
		real[ev] = append(real[ev], keys)
	}
	var mine [][]byte
	for _, n := range Names {
		s, _ := Claude(n)
		mine = append(mine, s.Events...)
	}
	checked := 0
	for _, p := range mine {
		ev, keys := eventKeys(t, p)
		refs := real[ev]
		if len(refs) == 0 {
			continue
		}
		checked++
		if !slices.ContainsFunc(refs, func(ref []string) bool { return follows(keys, ref) }) {
			t.Errorf("%s: keys %v follow no real payload's order, e.g. %v", ev, keys, refs[0])
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d payloads", checked)
	}
}

// follows reports whether every key of keys is in ref, in ref's order.
func follows(keys, ref []string) bool {
	last := -1
	for _, k := range keys {
		i := slices.Index(ref, k)
		if i < 0 && (k == "agent_id" || k == "agent_type") {
			continue
		}
		if i <= last {
			return false
		}
		last = i
	}
	return true
}

func eventKeys(t *testing.T, b []byte) (string, []string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	event := ""
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		if k == "hook_event_name" {
			json.Unmarshal(v, &event)
		}
	}
	return event, keys
}
