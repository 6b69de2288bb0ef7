package synth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
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

// TestDialectKeysLikeReal does the same for the harnesses whose real
// payloads the shared samples hold: Grok Build, VS Code, and Copilot CLI
// (whose camelCase payloads name no event: the event is the one each is
// configured for).
func TestDialectKeysLikeReal(t *testing.T) {
	for _, h := range []struct{ harness, dir string }{{"grok", "grok"}, {"vscode", "vscode-copilot"}, {"copilot-cli", "copilot-cli"}} {
		t.Run(h.harness, func(t *testing.T) {
			dir := corpora.Require(t, "samples/hooks/"+h.dir, "synthesized "+h.harness+" payloads against real key order")
			real := map[string][][]string{}
			add := func(event string, b []byte) {
				ev, keys := eventKeys(t, b)
				if ev == "" {
					ev = event
				}
				real[ev] = append(real[ev], keys)
			}
			copilotSeq := []string{"userPromptSubmitted", "sessionStart", "agentStop", "sessionEnd"}
			copilotFile := map[string]string{"agent-stop.json": "agentStop", "session-end.json": "sessionEnd", "session-start.json": "sessionStart", "user-prompt-submitted.json": "userPromptSubmitted"}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if filepath.Ext(f) == ".jsonl" {
					for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
						event := ""
						if h.harness == "copilot-cli" && i < len(copilotSeq) {
							event = copilotSeq[i]
						}
						add(event, l)
					}
					continue
				}
				add(copilotFile[filepath.Base(f)], b)
			}
			s, _ := Dialect(h.harness)
			checked := 0
			for i, p := range s.Events {
				ev, keys := eventKeys(t, p)
				if ev == "" && s.Config != nil {
					ev = s.Config[i]
				}
				refs := real[ev]
				if len(refs) == 0 {
					continue
				}
				checked++
				if !slices.ContainsFunc(refs, func(ref []string) bool { return follows(keys, ref) }) {
					t.Errorf("%s: keys %v follow no real payload's order, e.g. %v", ev, keys, refs[0])
				}
			}
			if checked < 2 {
				t.Fatalf("checked only %d payloads", checked)
			}
		})
	}
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
		if k == "hook_event_name" || k == "hookEventName" {
			json.Unmarshal(v, &event)
		}
	}
	return event, keys
}
