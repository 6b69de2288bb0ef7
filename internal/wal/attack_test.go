package wal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayKeptThenRemoved: a journal's fsync failed in a rotation, so
// its segment stays for replay; the session is then deleted (Remove,
// synced, the journal removed, as tombstoneCopy does) and the segment
// holding the Remove is retired and removed normally. Replay at the next
// start must not make the deleted journal again from the kept segment's
// older writes.
func TestReplayKeptThenRemoved(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "a.steps.jsonl", "secret-step\n")
	s.fail = func(p string) bool { return strings.HasSuffix(p, ".steps.jsonl") }
	if err := l.Rotate(); err == nil {
		t.Fatal("rotate passed")
	}
	s.fail = nil
	if err := l.Remove("a.steps.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "a.steps.jsonl")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatalf("the deleted journal is back after replay: %q", read(t, p))
	}
}

// TestCloseKeptThenRemoved: as TestReplayKeptThenRemoved, the Remove in
// the segment in use at Close.
func TestCloseKeptThenRemoved(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "b.steps.jsonl", "header\n")
	s.fail = func(p string) bool { return strings.HasSuffix(p, "a.steps.jsonl") }
	if err := l.Rotate(); err == nil {
		t.Fatal("rotate passed")
	}
	s.fail = nil
	for _, n := range []string{"a.steps.jsonl", "b.steps.jsonl"} {
		if err := l.Remove(n); err != nil {
			t.Fatal(err)
		}
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.steps.jsonl", "b.steps.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Fatalf("the deleted %s is back after replay", n)
		}
	}
	if n := segs(t, dir); len(n) != 0 {
		t.Fatalf("segments after replay: %v", n)
	}
}
