package server

import "testing"

// TestSeqState: what the server keeps of a session's numbers, as parallel
// hooks, lost events, a deleted count and a close and reopen give them.
func TestSeqState(t *testing.T) {
	dir := t.TempDir()
	var q seqState
	q.load(dir, "s", false)
	for _, n := range []int64{1, 3, 2, 6} { // 4 and 5 missing
		if _, reset := q.see(n); reset {
			t.Fatalf("%d: reset", n)
		}
	}
	if err := q.save(dir, "s"); err != nil {
		t.Fatal(err)
	}
	var r seqState
	r.load(dir, "s", true)
	if _, reset := r.see(5); reset { // came late
		t.Fatal("a late number is a reset")
	}
	if n := r.takeHoles(); n != 1 {
		t.Fatalf("holes %d, want 1 (4)", n)
	}
	if _, reset := r.see(4); reset { // noted at a seal, came after it
		t.Fatal("a number noted and come late is a reset")
	}
	if from, reset := r.see(1); !reset || from != 6 { // the count file deleted
		t.Fatalf("a number seen already: reset %v from %d", reset, from)
	}
	if _, reset := r.see(2); reset || r.takeHoles() != 0 {
		t.Fatal("the new count goes on")
	}
	r.see(2 + maxHoles + 10) // a count edited far forward: counted, not listed
	if n := r.takeHoles(); n != maxHoles+9 || len(r.noted) != 0 {
		t.Fatalf("holes %d, listed %d", n, len(r.noted))
	}
	// A session that had steps and no saved state (a server killed):
	// the first number above 1 cannot be checked.
	var u seqState
	u.load(dir, "killed", true)
	if _, reset := u.see(7); !reset {
		t.Fatal("no saved state and steps before: want a reset")
	}
	r.reset, r.refused = [2]int64{3, 1}, 2
	r.save(dir, "t")
	var v seqState
	v.load(dir, "t", true)
	if v.reset != r.reset || v.refused != 2 || v.max != r.max {
		t.Fatalf("saved %+v, loaded %+v", r, v)
	}
}
