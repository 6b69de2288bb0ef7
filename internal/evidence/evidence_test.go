package evidence

import (
	"bytes"

	"testing"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/review"
	"github.com/logbook-project/logbook/internal/strictjson"
	"github.com/logbook-project/logbook/internal/transcript"
)

func sum(t *testing.T, text string) string {
	v, err := strictjson.Parse([]byte(text), strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := digest.Body(v, []byte(text))
	return s
}

// TestHarnessAdded: an Edit input the hooks saw with replace_all added
// matches the transcript's input without it; anything else does not.
func TestHarnessAdded(t *testing.T) {
	model := []byte(` {"file_path":"/w/a","old_string":"x","new_string":"y"} `)
	hooks := sum(t, `{"file_path":"/w/a","old_string":"x","new_string":"y","replace_all":false}`)
	if f, ok := harnessAdded("Edit", model, hooks); !ok || len(f) != 1 || f[0] != "replace_all" {
		t.Fatalf("%v %v", f, ok)
	}
	if _, ok := harnessAdded("Edit", model, sum(t, `{"file_path":"/w/a","old_string":"x","new_string":"z","replace_all":false}`)); ok {
		t.Fatal("a changed input passed for a normalized one")
	}
	if _, ok := harnessAdded("Write", model, hooks); ok {
		t.Fatal("Write has no normalization")
	}
	if f := addable("Edit", []byte(`{"replace_all":true}`)); len(f) != 0 {
		t.Fatalf("present field listed: %v", f)
	}
	if _, ok := harnessAdded("Edit", []byte(`{}`), sum(t, `{"replace_all":false}`)); !ok {
		t.Fatal("empty input")
	}
}

// FuzzCheck: any transcript text gives a report or an error, never a
// panic, against a fixed set of recorded steps.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"type":"user","sessionId":"s","timestamp":"2026-05-01T10:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"assistant","sessionId":"s","timestamp":"2026-05-01T10:00:01Z","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/a"}}]}}` + "\n" +
		`{"type":"user","sessionId":"s","timestamp":"2026-05-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`))
	steps := []review.Step{
		{Seq: 0, Event: "UserPromptSubmit", Inputs: []string{digest.Bytes([]byte("hi"))}},
		{Seq: 1, Event: "PreToolUse", Tool: "Edit", ToolUseID: "t1", Inputs: []string{digest.Bytes([]byte("x"))}},
		{Seq: 2, Event: "PostToolUse", Tool: "Edit", ToolUseID: "t1", Inputs: []string{digest.Bytes([]byte("x"))}, Outputs: []string{digest.Bytes([]byte("ok"))}},
		{Seq: 3, Event: "PostToolBatch", Inputs: []string{digest.Bytes([]byte("y"))}},
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		events, _, err := transcript.Convert(bytes.NewReader(text), nil)
		if err != nil {
			return
		}
		r, err := Check(steps, events, &Raw{Bodies: bodiesOf(text), Calls: map[string]*RawCall{}})
		if err == nil {
			_ = r.OK()
		}
	})
}
