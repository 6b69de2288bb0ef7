package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/sessions from ../shared/corpora/agent-sessions")

// session is one committed fixture and what it must contain. The counts were
// worked out by hand from the transcripts (see testdata/sessions/README.md),
// not copied from the converter's output.
type session struct {
	name, file string
	counts     map[string]int
	unmatched  []string // tool_use_ids with a PreToolUse and no Post event
	silent     []string // tool_use_ids that get no hook event at all
	firings    int      // hook firings in the transcripts' hook_progress records
}

var sessions = []session{
	{
		name: "short", file: "short.jsonl",
		counts: map[string]int{SessionStart: 1, UserPromptSubmit: 1, PreToolUse: 1, SessionEnd: 1},
		// Bash was running when the user pressed Esc; Glob was still queued behind it.
		unmatched: []string{"toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"},
		silent:    []string{"toolu_01FdQ8qTyVyZjE3Kw4dguQGx"},
		firings:   2, // SessionStart:startup, PreToolUse:Bash
	},
	{
		name: "tool_heavy", file: "tool_heavy.jsonl",
		counts:  map[string]int{SessionStart: 1, UserPromptSubmit: 2, PreToolUse: 6, PostToolUse: 6, SessionEnd: 1},
		firings: 5, // SessionStart, 2 PreToolUse:Bash, PostToolUse:Glob, PostToolUse:Read
	},
	{
		name: "subagent", file: "subagent.jsonl",
		counts: map[string]int{SessionStart: 1, UserPromptSubmit: 2, PreToolUse: 16 + 7, PostToolUse: 16 + 6,
			PostToolUseFailure: 1, Stop: 1, SubagentStart: 1, SubagentStop: 1, SessionEnd: 1},
		// Two calls of the Plan agent were cancelled by their sibling's error.
		silent:  []string{"toolu_01QDUftK7MweJaWSx65d9Cmb", "toolu_0196nfvQm6Ung2nWD72F1YcU"},
		firings: 10, // SessionStart, 4 PreToolUse:Bash, PreToolUse:Write, PostToolUse Glob/Read/Write, Stop
	},
	{
		name: "258c7280", file: "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
		counts: map[string]int{SessionStart: 2, UserPromptSubmit: 4, PreToolUse: 185 + 2, PostToolUse: 179 + 2,
			PostToolUseFailure: 5, Stop: 3, SubagentStart: 1, SubagentStop: 1, PreCompact: 1, PostCompact: 1, SessionEnd: 1},
		unmatched: []string{"toolu_011NXYeWWxrZPLNNT8pFAZPi"}, // TaskOutput interrupted while blocking
		silent:    []string{"toolu_011v4f3amdxz8wWL4951uemP"}, // Read of a missing file: validation error
		// 2 SessionStart, 127 PreToolUse (Bash/Edit/Write), 181 PostToolUse
		// (matcher .*), 5 PostToolUseFailure, 3 Stop.
		firings: 318,
	},
}

// moduleRoot is the directory holding go.mod; shared/ lies next to it.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func corpusPath(t *testing.T, file string) string {
	t.Helper()
	p := filepath.Join(moduleRoot(t), "..", "shared", "corpora", "agent-sessions", file)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus transcript missing (shared/ must sit next to the repository): %v", err)
	}
	return p
}

func fixture(t *testing.T, name, ext string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "testdata", "sessions", name+ext))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func convertSession(t *testing.T, s session) ([]Event, Stats) {
	t.Helper()
	events, st, err := ConvertFile(corpusPath(t, s.file))
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return events, st
}

// TestFixturesRegenerate: converting the corpus again gives the committed
// bytes exactly. Run with -update after a deliberate change.
func TestFixturesRegenerate(t *testing.T) {
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			events, _ := convertSession(t, s)
			var hooks, times bytes.Buffer
			if err := WriteJSONL(&hooks, events); err != nil {
				t.Fatal(err)
			}
			if err := WriteTimes(&times, events); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(moduleRoot(t), "testdata", "sessions")
			if *update {
				for ext, b := range map[string][]byte{".hooks.jsonl": hooks.Bytes(), ".times": times.Bytes()} {
					if err := os.WriteFile(filepath.Join(dir, s.name+ext), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got, want := hooks.Bytes(), fixture(t, s.name, ".hooks.jsonl"); !bytes.Equal(got, want) {
				t.Errorf("%s.hooks.jsonl differs from a fresh conversion (%d vs %d bytes, first difference at byte %d)",
					s.name, len(want), len(got), firstDiff(got, want))
			}
			if got, want := times.Bytes(), fixture(t, s.name, ".times"); !bytes.Equal(got, want) {
				t.Errorf("%s.times differs from a fresh conversion at byte %d", s.name, firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

type line struct {
	Event     string `json:"hook_event_name"`
	Session   string `json:"session_id"`
	ToolUseID string `json:"tool_use_id"`
	AgentID   string `json:"agent_id"`
}

func fixtureLines(t *testing.T, name string) []line {
	t.Helper()
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(fixture(t, name, ".hooks.jsonl")))
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Bytes()
		if !json.Valid(raw) || len(raw) == 0 || raw[0] != '{' {
			t.Fatalf("%s line %d is not a JSON object", name, n)
		}
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("%s line %d: %v", name, n, err)
		}
		if l.Event == "" || l.Session == "" {
			t.Errorf("%s line %d lacks hook_event_name or session_id", name, n)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var timeLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// TestFixtureShape: every line is a JSON object with hook_event_name and
// session_id, one session id per file, SessionStart first and SessionEnd
// last, and the .times file has one well-formed, non-decreasing instant per
// payload line.
func TestFixtureShape(t *testing.T) {
	for _, s := range sessions {
		lines := fixtureLines(t, s.name)
		if len(lines) == 0 || lines[0].Event != SessionStart || lines[len(lines)-1].Event != SessionEnd {
			t.Errorf("%s: must start with SessionStart and end with SessionEnd", s.name)
		}
		for i, l := range lines {
			if l.Session != lines[0].Session {
				t.Errorf("%s line %d: session_id %q, want %q", s.name, i+1, l.Session, lines[0].Session)
			}
		}
		times := bytes.Split(bytes.TrimSuffix(fixture(t, s.name, ".times"), []byte("\n")), []byte("\n"))
		if len(times) != len(lines) {
			t.Fatalf("%s: %d times for %d payloads", s.name, len(times), len(lines))
		}
		var prev time.Time
		for i, tl := range times {
			if !timeLine.Match(tl) {
				t.Fatalf("%s.times line %d: %q is not YYYY-MM-DDTHH:MM:SS.mmmZ", s.name, i+1, tl)
			}
			at, err := time.Parse(time.RFC3339Nano, string(tl))
			if err != nil {
				t.Fatalf("%s.times line %d: %v", s.name, i+1, err)
			}
			if at.Before(prev) {
				t.Errorf("%s.times line %d goes back in time", s.name, i+1)
			}
			prev = at
		}
	}
}

// TestToolPairs: each PreToolUse has exactly one PostToolUse or
// PostToolUseFailure after it, except the calls listed as unmatched, and no
// Post event lacks its PreToolUse.
func TestToolPairs(t *testing.T) {
	for _, s := range sessions {
		pre, post := map[string]int{}, map[string]int{}
		for i, l := range fixtureLines(t, s.name) {
			switch l.Event {
			case PreToolUse:
				if pre[l.ToolUseID] != 0 {
					t.Errorf("%s: second PreToolUse for %s", s.name, l.ToolUseID)
				}
				pre[l.ToolUseID] = i + 1
			case PostToolUse, PostToolUseFailure:
				if pre[l.ToolUseID] == 0 {
					t.Errorf("%s line %d: %s for %s without an earlier PreToolUse", s.name, i+1, l.Event, l.ToolUseID)
				}
				post[l.ToolUseID]++
			}
		}
		var unmatched []string
		for id := range pre {
			switch post[id] {
			case 0:
				unmatched = append(unmatched, id)
			case 1:
			default:
				t.Errorf("%s: %d Post events for %s", s.name, post[id], id)
			}
		}
		if slices.Sort(unmatched); !slices.Equal(unmatched, sorted(s.unmatched)) {
			t.Errorf("%s: unmatched PreToolUse %v, want %v", s.name, unmatched, s.unmatched)
		}
	}
}

func sorted(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if xs == nil {
		xs = []string{}
	}
	return xs
}

// TestCounts: events per hook_event_name equal the hand-determined numbers,
// and Stats names the same unmatched and hook-less calls.
func TestCounts(t *testing.T) {
	for _, s := range sessions {
		got := map[string]int{}
		for _, l := range fixtureLines(t, s.name) {
			got[l.Event]++
		}
		if !maps.Equal(got, s.counts) {
			t.Errorf("%s: counts %v, want %v", s.name, got, s.counts)
		}
		_, st := convertSession(t, s)
		if !maps.Equal(st.Counts, s.counts) {
			t.Errorf("%s: Stats.Counts %v, want %v", s.name, st.Counts, s.counts)
		}
		if ids := toolIDs(st.Unmatched); !slices.Equal(ids, sorted(s.unmatched)) {
			t.Errorf("%s: Stats.Unmatched %v, want %v", s.name, ids, s.unmatched)
		}
		if ids := toolIDs(st.Silent); !slices.Equal(ids, sorted(s.silent)) {
			t.Errorf("%s: Stats.Silent %v, want %v", s.name, ids, s.silent)
		}
	}
}

func toolIDs(calls []ToolCall) []string {
	ids := []string{}
	for _, c := range calls {
		ids = append(ids, c.ToolUseID)
	}
	slices.Sort(ids)
	return ids
}

// TestHookProgressAgreement: every hook firing the transcripts recorded has
// its event, and the events come in the firings' order.
func TestHookProgressAgreement(t *testing.T) {
	for _, s := range sessions {
		_, st := convertSession(t, s)
		h := st.Hooks
		if h.Firings != s.firings || h.Matched != h.Firings || h.InOrder != h.Matched || len(h.Missing) > 0 {
			t.Errorf("%s: firings %d (want %d), matched %d, in order %d, missing %v",
				s.name, h.Firings, s.firings, h.Matched, h.InOrder, h.Missing)
		}
	}
}

// TestRawValuesVerbatim: tool_input, tool_response, error and the copied
// strings are the transcript's own bytes, found verbatim in the source
// files. The one exception is a slash-command prompt, rebuilt from its tags.
func TestRawValuesVerbatim(t *testing.T) {
	for _, s := range sessions {
		src, err := os.ReadFile(corpusPath(t, s.file))
		if err != nil {
			t.Fatal(err)
		}
		agentFiles, _ := filepath.Glob(filepath.Join(filepath.Dir(corpusPath(t, s.file)),
			s.file[:len(s.file)-len(".jsonl")], "subagents", "*.jsonl"))
		for _, f := range agentFiles {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src = append(src, b...)
		}
		events, _ := convertSession(t, s)
		for i, e := range events {
			for key, raw := range map[string]json.RawMessage{"tool_input": e.ToolInput, "tool_response": e.ToolResponse,
				"error": e.Error, "last_assistant_message": e.LastAssistantMessage, "compact_summary": e.CompactSummary, "prompt": e.Prompt} {
				if len(raw) == 0 || bytes.Contains(src, raw) {
					continue
				}
				if key == "prompt" && bytes.HasPrefix(raw, []byte(`"/`)) {
					continue
				}
				t.Errorf("%s event %d (%s): %s is not a verbatim copy", s.name, i+1, e.HookEventName, key)
			}
		}
	}
}

// TestKeyOrder: each payload's keys come in the order of a real payload of
// the same event captured from Claude Code (shared/samples/hooks). Keys a
// sample lacks are allowed only where documented: agent_id/agent_type on
// events fired inside a sub-agent.
func TestKeyOrder(t *testing.T) {
	samples := map[string]string{
		SessionStart: "session-start-startup.json", UserPromptSubmit: "user-prompt-submit.json",
		PreToolUse: "pre-tool-use-bash.json", PostToolUse: "post-tool-use-bash.json",
		PostToolUseFailure: "post-tool-use-failure-read.json", Stop: "stop.json",
		SubagentStart: "subagent-start.json", SubagentStop: "subagent-stop-general-purpose.json",
		PreCompact: "pre-compact-auto.json", SessionEnd: "session-end-clear.json",
	}
	want := map[string][]string{}
	for name, file := range samples {
		b, err := os.ReadFile(filepath.Join(moduleRoot(t), "..", "shared", "samples", "hooks", "claude-code", file))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = topKeys(t, b)
	}
	for _, s := range sessions {
		sc := bufio.NewScanner(bytes.NewReader(fixture(t, s.name, ".hooks.jsonl")))
		sc.Buffer(nil, 1<<26)
		for n := 1; sc.Scan(); n++ {
			keys := topKeys(t, sc.Bytes())
			var ev struct {
				Name string `json:"hook_event_name"`
			}
			_ = json.Unmarshal(sc.Bytes(), &ev)
			ref, ok := want[ev.Name]
			if !ok {
				continue // PostCompact: no captured sample
			}
			last := -1
			for _, k := range keys {
				i := slices.Index(ref, k)
				if i < 0 && (k == "agent_id" || k == "agent_type") {
					continue
				}
				if i <= last {
					t.Errorf("%s line %d: %s key order %v does not follow the captured %v", s.name, n, ev.Name, keys, ref)
					break
				}
				last = i
			}
		}
	}
}

func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
