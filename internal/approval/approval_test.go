package approval

import (
	"errors"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/orgpolicy"
)

// TestDecide: an approval is refused to the developer who asked, for
// other inputs, without a name and after it expired; given once (a
// second decision finds nothing), and Close returns it; a call nobody
// decided closes expired.
func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	q := New()
	req := Request{ID: NewID(), Tool: "Bash", Inputs: []string{"aa"}, Requester: "alice", Created: t0, Expires: t0.Add(time.Minute)}
	done := q.Open(req)
	if l := q.List(); len(l) != 1 || l[0].ID != req.ID {
		t.Fatalf("list: %+v", l)
	}
	for _, c := range []struct {
		who    string
		inputs []string
		at     time.Time
		want   error
	}{
		{"alice", []string{"aa"}, t0, ErrSelf},
		{"bob", []string{"bb"}, t0, ErrInput},
		{"bob", nil, t0, ErrInput},
		{"", []string{"aa"}, t0, ErrNoName},
		{"bob", []string{"aa"}, t0.Add(time.Minute), ErrExpired},
	} {
		if _, err := q.Decide(req.ID, c.who, true, c.inputs, "", c.at); !errors.Is(err, c.want) {
			t.Errorf("%s %v at %v: %v, want %v", c.who, c.inputs, c.at, err, c.want)
		}
	}
	select {
	case <-done:
		t.Fatal("decided by a refused decision")
	default:
	}
	if _, err := q.Decide(req.ID, "bob", true, []string{"aa"}, "ok", t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, err := q.Decide(req.ID, "carol", false, []string{"aa"}, "", t0.Add(2*time.Second)); err != ErrUnknown {
		t.Errorf("second decision: %v", err)
	}
	if len(q.List()) != 0 {
		t.Error("a decided call still listed")
	}
	if d := q.Close(req.ID, t0.Add(3*time.Second)); d.Outcome != orgpolicy.Approved || d.Approver != "bob" || d.Reason != "ok" {
		t.Errorf("closed: %+v", d)
	}
	other := Request{ID: NewID(), Inputs: []string{"cc"}, Created: t0, Expires: t0.Add(time.Minute)}
	q.Open(other)
	if d := q.Close(other.ID, t0.Add(time.Minute)); d.Outcome != orgpolicy.Expired || d.Approver != "" {
		t.Errorf("nobody decided: %+v", d)
	}
	if _, err := q.Decide(other.ID, "bob", true, []string{"cc"}, "", t0); err != ErrUnknown {
		t.Errorf("after close: %v", err)
	}
}
