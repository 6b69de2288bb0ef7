package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
	"github.com/logbook-project/logbook/internal/testkit/synth"
	"github.com/logbook-project/logbook/internal/transcript"
)

// synthSession returns one of the project's own Claude Code sessions
// (internal/testkit/synth: short, tool_heavy, subagent, long).
func synthSession(t testing.TB, name string) session {
	s, ok := synth.Claude(name)
	if !ok {
		t.Fatalf("no synthesized session %q", name)
	}
	return session{name: name, events: s.Events, times: s.Times}
}

// corpusSessions returns the real sessions of the shared data: the public
// transcripts converted to hook events on the fly (internal/transcript),
// and the hook payload sequences captured as Claude Code sent them. The
// calling test is skipped, with one line, when they are absent.
func corpusSessions(t *testing.T) []session {
	dir := corpora.Require(t, "corpora/agent-sessions", "replay of real sessions (4 public transcripts, 5 captured sequences)")
	var out []session
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	for _, f := range files {
		events, _, err := transcript.ConvertFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var hooks, times bytes.Buffer
		if err := transcript.WriteJSONL(&hooks, events); err != nil {
			t.Fatal(err)
		}
		transcript.WriteTimes(&times, events)
		s := session{name: strings.TrimSuffix(filepath.Base(f), ".jsonl")}
		s.events = splitLines(hooks.Bytes())
		s.times = strings.Fields(times.String())
		out = append(out, s)
	}
	if samples, ok := corpora.Find("samples/hooks/claude-code"); ok {
		seqs, _ := filepath.Glob(filepath.Join(samples, "sequence-*.jsonl"))
		for _, f := range seqs {
			out = append(out, loadSession(t, f, ""))
		}
	}
	if len(out) < 8 {
		t.Fatalf("found %d real sessions, want at least 8", len(out))
	}
	return out
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}
