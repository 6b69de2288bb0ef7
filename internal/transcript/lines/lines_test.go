package lines

import (
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	in := `{"type":"user","timestamp":"2026-01-02T03:04:05.678Z","message":{"content":"hi"}}

{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}
`
	recs, err := Read(strings.NewReader(in))
	if err != nil || len(recs) != 2 {
		t.Fatal(len(recs), err)
	}
	if r := recs[0]; r.Line != 1 || !r.Time.Equal(time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)) || string(r.ContentString()) != `"hi"` {
		t.Errorf("%+v", r)
	}
	if r := recs[1]; r.Line != 3 || !r.HasToolUse() || string(TextOf(r.Blocks())) != `"a"` {
		t.Errorf("%+v", r)
	}
	if _, err := Read(strings.NewReader("{}\n[1]\n")); err == nil || !strings.Contains(err.Error(), "2") {
		t.Errorf("a line that is not an object: %v", err)
	}
}
