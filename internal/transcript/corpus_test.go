package transcript

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// session is one transcript of the shared corpus (corpora/agent-sessions,
// found by internal/testkit/corpora) and what its conversion must contain. The
// counts were worked out by hand from the transcripts (see
// docs/transcripts.md), not copied from the converter's output. Every test
// here is conformance: without the corpus it is skipped, with one line
// saying so.
type session struct {
	name, file string
	// sha256 of the converted payloads and of the times, pinned so that a
	// change to the converter's output is deliberate.
	hooksSHA, timesSHA string
	counts             map[string]int
	unmatched          []string // tool_use_ids with a PreToolUse and no Post event
	silent             []string // tool_use_ids that get no hook event at all
	firings            int      // hook firings in the transcripts' hook_progress records
}

var sessions = []session{
	{
		name: "short", file: "short.jsonl",
		hooksSHA: "ae4d171c191d464891696414d2ae06057cd3c76509458077ae0f1a39b301f5b0",
		timesSHA: "5c9f092c2469d9fdc87e91adaaf3289f9c3e322d85b3896c75d808e208ad0058",
		counts:   map[string]int{SessionStart: 1, UserPromptSubmit: 1, PreToolUse: 1, SessionEnd: 1},
		// Bash was running when the user pressed Esc; Glob was still queued behind it.
		unmatched: []string{"toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"},
		silent:    []string{"toolu_01FdQ8qTyVyZjE3Kw4dguQGx"},
		firings:   2, // SessionStart:startup, PreToolUse:Bash
	},
	{
		name: "tool_heavy", file: "tool_heavy.jsonl",
		hooksSHA: "e3cf981a54b145145acb0ac3091e61d1d9a4cdca32ff577a405de32583e0934f",
		timesSHA: "25644b14f30250ae466107fb0fa902cf16d875de1a2b5a12095a784827fe5231",
		counts:   map[string]int{SessionStart: 1, UserPromptSubmit: 2, PreToolUse: 6, PostToolUse: 6, SessionEnd: 1},
		firings:  5, // SessionStart, 2 PreToolUse:Bash, PostToolUse:Glob, PostToolUse:Read
	},
	{
		name: "subagent", file: "subagent.jsonl",
		hooksSHA: "133ddbbd02b1f3a96a3e23f7e6fce6240d958b5cf8b3ec0270ea8776b8e93862",
		timesSHA: "fc6fc89e97d5845cccb928265f75384f91eff18f91ae948e4655026057287c2a",
		counts: map[string]int{SessionStart: 1, UserPromptSubmit: 2, PreToolUse: 16 + 7, PostToolUse: 16 + 6,
			PostToolUseFailure: 1, Stop: 1, SubagentStart: 1, SubagentStop: 1, SessionEnd: 1},
		// Two calls of the Plan agent were cancelled by their sibling's error.
		silent:  []string{"toolu_01QDUftK7MweJaWSx65d9Cmb", "toolu_0196nfvQm6Ung2nWD72F1YcU"},
		firings: 10, // SessionStart, 4 PreToolUse:Bash, PreToolUse:Write, PostToolUse Glob/Read/Write, Stop
	},
	{
		name: "258c7280", file: "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
		hooksSHA: "bc871f839235bd7078f9024f7512f0a9fa3930cbb3b9b7377a81248e6493d1bf",
		timesSHA: "122514bad60f6cf9aa78b0642191753f0e5dba7cfbe47718b0e1fd0a16f579b2",
		counts: map[string]int{SessionStart: 2, UserPromptSubmit: 4, PreToolUse: 185 + 2, PostToolUse: 179 + 2,
			PostToolUseFailure: 5, Stop: 3, SubagentStart: 1, SubagentStop: 1, PreCompact: 1, PostCompact: 1, SessionEnd: 1},
		unmatched: []string{"toolu_011NXYeWWxrZPLNNT8pFAZPi"}, // TaskOutput interrupted while blocking
		silent:    []string{"toolu_011v4f3amdxz8wWL4951uemP"}, // Read of a missing file: validation error
		// 2 SessionStart, 127 PreToolUse (Bash/Edit/Write), 181 PostToolUse
		// (matcher .*), 5 PostToolUseFailure, 3 Stop.
		firings: 318,
	},
}

func corpusPath(t *testing.T, file string) string {
	t.Helper()
	return filepath.Join(corpora.Require(t, "corpora/agent-sessions", "transcript conversion of the real sessions (4 transcripts)"), file)
}

var converted sync.Map // session name → [2][]byte{hooks, times}

// fixture returns a fresh conversion of the session's transcript:
// ".hooks.jsonl" gives the payloads, ".times" their instants.
func fixture(t *testing.T, name, ext string) []byte {
	t.Helper()
	v, ok := converted.Load(name)
	if !ok {
		i := slices.IndexFunc(sessions, func(s session) bool { return s.name == name })
		events, _ := convertSession(t, sessions[i])
		var hooks, times bytes.Buffer
		if err := WriteJSONL(&hooks, events); err != nil {
			t.Fatal(err)
		}
		if err := WriteTimes(&times, events); err != nil {
			t.Fatal(err)
		}
		v, _ = converted.LoadOrStore(name, [2][]byte{hooks.Bytes(), times.Bytes()})
	}
	if ext == ".times" {
		return v.([2][]byte)[1]
	}
	return v.([2][]byte)[0]
}

func convertSession(t *testing.T, s session) ([]Event, Stats) {
	t.Helper()
	events, st, err := ConvertFile(corpusPath(t, s.file))
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return events, st
}

// TestConversionStable: converting the corpus gives the pinned bytes
// exactly. After a deliberate change, run with -v to see the new digests.
func TestConversionStable(t *testing.T) {
	corpusPath(t, "")
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			hooks, times := sha256.Sum256(fixture(t, s.name, ".hooks.jsonl")), sha256.Sum256(fixture(t, s.name, ".times"))
			t.Logf("%s: hooks %x times %x", s.name, hooks, times)
			if hex.EncodeToString(hooks[:]) != s.hooksSHA || hex.EncodeToString(times[:]) != s.timesSHA {
				t.Errorf("%s: the conversion changed (hooks %x, times %x)", s.name, hooks, times)
			}
		})
	}
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
		b, err := os.ReadFile(filepath.Join(corpora.Require(t, "samples/hooks/claude-code", "key order against real Claude Code payloads"), file))
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
