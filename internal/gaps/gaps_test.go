package gaps

import (
	"reflect"
	"testing"

	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/wraprun"
)

func TestCounts(t *testing.T) {
	var tr Tracker
	for _, e := range [][2]string{
		{"UserPromptSubmit", ""},
		{"PostToolUse", "a"}, // lands before its pre-event (parallel hooks)
		{"PreToolUse", "a"},
		{"PreToolUse", "b"}, // never finished
		{"PreToolUse", "c"},
		{"PreToolUse", "c"}, // delivered twice
		{"PostToolUseFailure", "c"},
		{"PostToolUse", "d"}, // no pre-event
		{"PostToolUse", "d"}, // and repeated
		{"PreToolUse", ""},   // no id: nothing to pair
	} {
		tr.Observe(e[0], e[1])
	}
	want := Counts{UnfinishedToolCalls: 1, DuplicatePreEvents: 1, DuplicatePostEvents: 1, PostWithoutPre: 1, MissingSessionStart: 1}
	got := tr.Counts()
	named := Named{Unfinished: []string{"b"}, DuplicatePre: []string{"c"}, DuplicatePost: []string{"d"}, PostWithoutPre: []string{"d"}, Denied: []string{}}
	if got.ToolUseIDs == nil || !reflect.DeepEqual(*got.ToolUseIDs, named) {
		t.Fatalf("named %+v, want %+v", got.ToolUseIDs, named)
	}
	got.ToolUseIDs = nil
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got := tr.Unfinished(); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("unfinished %v", got)
	}
	tr.Observe("SessionStart", "")
	if got := tr.Counts(); got.MissingSessionStart != 0 || got.Total() != 4 {
		t.Fatalf("after SessionStart: %+v", got)
	}
}

func TestObserveShallowData(t *testing.T) {
	src := []byte(`{"data":{"event":"PreToolUse","toolUseId":"x","big":[1,2,3]}}`)
	// Read the outer object shallowly: data keeps its span, not its members.
	root, err := strictjson.Shallow(src, strictjson.Options{MaxDepth: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := root.Get("data")
	d.Members = nil
	var tr Tracker
	tr.ObserveData(d, src)
	if got := tr.Unfinished(); !reflect.DeepEqual(got, []string{"x"}) {
		t.Fatalf("shallow data not read: %v", got)
	}
}

// TestWrapEventsPair: logbook-wrap's start and end steps pair like a tool
// call's pre- and post-events (the names must not drift apart).
func TestWrapEventsPair(t *testing.T) {
	if PhaseOf(wraprun.EventStart) != Pre || PhaseOf(wraprun.EventEnd) != Post {
		t.Fatalf("%s and %s are not a pre/post pair", wraprun.EventStart, wraprun.EventEnd)
	}
}

// TestWrapOnlySession: a session of logbook-wrap steps alone has no
// harness to start it, so no SessionStart is missing.
func TestWrapOnlySession(t *testing.T) {
	var tr Tracker
	tr.Observe(wraprun.EventStart, "w1")
	tr.Observe(wraprun.EventEnd, "w1")
	tr.Observe("logbook.unfinishedToolCalls", "")
	if c := tr.Counts(); c.Total() != 0 {
		t.Fatalf("%+v", c)
	}
}

// TestDenied: a call an enforced gate step denied, with no post-event,
// is counted denied, not unfinished, and is no gap; a denial in audit
// mode, an ask, or a gate of another event leaves the call unfinished; a
// denied call that has a post-event anyway is neither (verify's
// DENIED_CALL_RAN says it).
func TestDenied(t *testing.T) {
	gate := func(id, gated, decision string, enforced bool) *strictjson.Value {
		v := strictjson.Obj(
			strictjson.Member{Key: "event", Value: strictjson.Str(GateEvent)},
			strictjson.Member{Key: "gated", Value: strictjson.Str(gated)},
			strictjson.Member{Key: "toolUseId", Value: strictjson.Str(id)},
			strictjson.Member{Key: "decision", Value: strictjson.Str(decision)},
			strictjson.Member{Key: "enforced", Value: strictjson.Bool(enforced)})
		return &v
	}
	ev := func(name, id string) *strictjson.Value {
		v := strictjson.Obj(strictjson.Member{Key: "event", Value: strictjson.Str(name)}, strictjson.Member{Key: "toolUseId", Value: strictjson.Str(id)})
		return &v
	}
	var tr Tracker
	for _, d := range []*strictjson.Value{
		ev("SessionStart", ""),
		gate("denied", "PreToolUse", "deny", true), ev("PreToolUse", "denied"),
		gate("audit", "PreToolUse", "deny", false), ev("PreToolUse", "audit"),
		gate("asked", "PreToolUse", "ask", true), ev("PreToolUse", "asked"),
		gate("perm", "PreToolUse", "allow", true), ev("PreToolUse", "perm"), gate("perm", "PermissionRequest", "deny", true),
		gate("ran", "PreToolUse", "deny", true), ev("PreToolUse", "ran"), ev("PostToolUse", "ran"),
		gate("post", "PostToolUse", "deny", true), ev("PreToolUse", "post"),
	} {
		tr.ObserveData(d, nil)
	}
	c := tr.Counts()
	if c.DeniedToolCalls != 2 || c.UnfinishedToolCalls != 3 || c.Total() != 3 {
		t.Fatalf("%+v", c)
	}
	if got := tr.Denied(); !reflect.DeepEqual(got, []string{"denied", "perm"}) {
		t.Fatalf("denied %v", got)
	}
	if got := tr.Unfinished(); !reflect.DeepEqual(got, []string{"asked", "audit", "post"}) {
		t.Fatalf("unfinished %v", got)
	}
	if c.ToolUseIDs == nil || !reflect.DeepEqual(c.ToolUseIDs.Denied, []string{"denied", "perm"}) {
		t.Fatalf("named %+v", c.ToolUseIDs)
	}
	// Denied calls alone: no gap, and still named.
	var only Tracker
	only.ObserveData(ev("SessionStart", ""), nil)
	only.ObserveData(gate("x", "PreToolUse", "deny", true), nil)
	only.ObserveData(ev("PreToolUse", "x"), nil)
	if c := only.Counts(); c.Total() != 0 || c.DeniedToolCalls != 1 || c.ToolUseIDs == nil || len(c.ToolUseIDs.Denied) != 1 {
		t.Fatalf("%+v", c)
	}
}
