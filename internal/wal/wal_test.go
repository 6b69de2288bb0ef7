package wal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// journal appends b to the file name of dir and logs it, as a journal
// with its Log set does.
func journal(t *testing.T, l *Log, dir, name string, b string) {
	t.Helper()
	p := filepath.Join(dir, name)
	st, err := os.Stat(p)
	off := int64(0)
	if err == nil {
		off = st.Size()
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(name, off, []byte(b)); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func segs(t *testing.T, dir string) []string {
	t.Helper()
	s, _ := filepath.Glob(filepath.Join(dir, Subdir, "*.wal"))
	return s
}

func open(t *testing.T, dir string, opts Options) *Log {
	t.Helper()
	l, _, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// crash leaves the log as a killed process does: its segment and the
// lock's file closed, nothing retired.
func (l *Log) crash() {
	l.mu.Lock()
	l.cur.f.Close()
	l.failed = errors.New("crashed")
	l.mu.Unlock()
	l.unlock()
}

// TestInUse: a second Open, or a Replay, of a directory whose log is
// open is refused (it would remove the segment in use); after Close it
// is not.
func TestInUse(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	if _, _, err := Open(dir, Options{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v", err)
	}
	if _, err := Replay(dir, Options{}); !errors.Is(err, ErrInUse) {
		t.Fatalf("Replay: %v", err)
	}
	if len(segs(t, dir)) != 1 {
		t.Fatal("the segment in use went")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, dir, Options{})
	l.crash()
	if _, err := Replay(dir, Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeParse(t *testing.T) {
	es := []Entry{
		{Kind: Write, Name: "a.steps.jsonl", Off: 0, Data: []byte("{\"h\":1}\n")},
		{Kind: Write, Name: "b.steps.jsonl", Off: 7, Data: []byte("x\n")},
		{Kind: Remove, Name: "a.steps.jsonl"},
		{Kind: Write, Name: "b.steps.jsonl", Off: 9, Data: nil},
	}
	var seg []byte
	var ends []int
	for _, e := range es {
		b, err := Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		seg = append(seg, b...)
		ends = append(ends, len(seg))
	}
	// Cut anywhere: exactly the whole entries before the cut are read.
	for cut := 0; cut <= len(seg); cut++ {
		var got []Entry
		n, err := Parse(seg[:cut], func(e Entry) error { got = append(got, e); return nil })
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for want < len(ends) && ends[want] <= cut {
			want++
		}
		if len(got) != want || (want > 0 && n != int64(ends[want-1])) || (want == 0 && n != 0) {
			t.Fatalf("cut at %d: %d entries (%d bytes), want %d", cut, len(got), n, want)
		}
		for i := range got {
			if got[i].Kind != es[i].Kind || got[i].Name != es[i].Name || got[i].Off != es[i].Off || !bytes.Equal(got[i].Data, es[i].Data) {
				t.Fatalf("entry %d: %+v, want %+v", i, got[i], es[i])
			}
		}
	}
	// A flipped bit anywhere in an entry ends the segment there.
	for i := 0; i < ends[0]; i++ {
		b := bytes.Clone(seg)
		b[i] ^= 0x10
		n, _ := Parse(b, func(Entry) error { return nil })
		if n != 0 {
			t.Fatalf("bit flipped at %d: read %d bytes", i, n)
		}
	}
	for _, bad := range []Entry{{Kind: Write, Name: "../x"}, {Kind: Write, Name: ".x"}, {Kind: Write, Name: "a/b"}, {Kind: Write, Name: "key"}, {Kind: Remove, Name: "a.record.json"}, {Kind: Write, Name: "-a.steps.jsonl"}, {Kind: 9, Name: "x"}, {Kind: Write, Name: "x", Off: -1}, {Kind: Remove, Name: "x", Off: 1}} {
		if _, err := Encode(bad); err == nil {
			t.Errorf("%+v encoded", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	a, _ := Encode(Entry{Kind: Write, Name: "s.steps.jsonl", Off: 3, Data: []byte("abc\n")})
	r, _ := Encode(Entry{Kind: Remove, Name: "s.steps.jsonl"})
	f.Add(append(a, r...))
	f.Add(a[:len(a)-1])
	f.Add([]byte{})
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var out []byte
		n, err := Parse(b, func(e Entry) error {
			if ValidName(e.Name) != nil || e.Off < 0 {
				t.Fatalf("entry %+v read", e)
			}
			enc, err := Encode(e)
			if err != nil {
				t.Fatalf("entry %+v read, not encodable: %v", e, err)
			}
			out = append(out, enc...)
			return nil
		})
		if err != nil && !errors.Is(err, ErrCorrupt) || n < 0 || n > int64(len(b)) {
			t.Fatalf("%d, %v", n, err)
		}
		if !bytes.Equal(out, b[:n]) {
			t.Fatal("entries read do not encode to the bytes they came from")
		}
	})
}

// TestReplay: every file the log wrote, cut short or emptied (a power
// loss took its unsynced pages), or holding other bytes where an entry
// went, is given its bytes back; a file that has them is left alone (a
// second replay changes nothing); the segments go.
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	journal(t, l, dir, "a.steps.jsonl", "header-a\n")
	journal(t, l, dir, "b.steps.jsonl", "header-b\n")
	journal(t, l, dir, "a.steps.jsonl", "step-a1\n")
	journal(t, l, dir, "a.steps.jsonl", "step-a2\n")
	journal(t, l, dir, "b.steps.jsonl", "step-b1\n")
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	wantA, wantB := read(t, filepath.Join(dir, "a.steps.jsonl")), read(t, filepath.Join(dir, "b.steps.jsonl"))
	l.crash()
	// The power cut: a lost half its last line, b lost its name.
	if err := os.Truncate(filepath.Join(dir, "a.steps.jsonl"), int64(len(wantA)-4)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "b.steps.jsonl"))
	st, err := Replay(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := read(t, filepath.Join(dir, "a.steps.jsonl")), read(t, filepath.Join(dir, "b.steps.jsonl")); a != wantA || b != wantB {
		t.Fatalf("after replay: %q %q, want %q %q", a, b, wantA, wantB)
	}
	if st.Segments != 1 || st.Entries != 5 || st.Written != 3 || st.Present != 2 {
		t.Fatalf("%+v", st)
	}
	if s := segs(t, dir); len(s) != 0 {
		t.Fatalf("segments left: %v", s)
	}
	// The same segment again (a crash before its removal was on disk):
	// nothing changes.
	l2 := open(t, dir, Options{})
	journal(t, l2, dir, "a.steps.jsonl", "step-a3\n")
	wantA = read(t, filepath.Join(dir, "a.steps.jsonl"))
	seg, _ := os.ReadFile(segs(t, dir)[0])
	l2.crash()
	for range 2 {
		os.MkdirAll(filepath.Join(dir, Subdir), 0o700)
		os.WriteFile(filepath.Join(dir, Subdir, "00000000000000000009.wal"), seg, 0o600)
		st, err = Replay(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a := read(t, filepath.Join(dir, "a.steps.jsonl")); a != wantA || st.Present == 0 || st.Written != 0 {
			t.Fatalf("replayed again: %q %+v", a, st)
		}
	}
}

// TestReplayTornTail: the segment ends inside an entry (a power loss in
// the middle of its write, never synced, never acknowledged): the
// entries before it are replayed, it is not, and the file keeps what it
// has of that write (as a journal keeps an unacknowledged append).
func TestReplayTornTail(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "a.steps.jsonl", "step-1\n")
	journal(t, l, dir, "a.steps.jsonl", "step-2\n")
	l.crash()
	s := segs(t, dir)[0]
	fi, _ := os.Stat(s)
	if err := os.Truncate(s, fi.Size()-3); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "a.steps.jsonl"), 3); err != nil {
		t.Fatal(err)
	}
	st, err := Replay(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := read(t, filepath.Join(dir, "a.steps.jsonl")); a != "header\nstep-1\n" || st.Entries != 2 {
		t.Fatalf("%q %+v", a, st)
	}
}

// TestReplayOtherBytes: where an entry went, the file holds other bytes
// and no newline to its end (a torn tail, never acknowledged): the file
// is cut there and given the logged bytes. A file now
// shorter than where a write went, or removed, is left: the write has
// nothing to follow. A removal is replayed.
func TestReplayOtherBytes(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "a.steps.jsonl", "step-1\n")
	journal(t, l, dir, "b.steps.jsonl", "header\n")
	journal(t, l, dir, "b.steps.jsonl", "step-1\n")
	journal(t, l, dir, "c.steps.jsonl", "header\n")
	journal(t, l, dir, "c.steps.jsonl", "step-1\n")
	if err := l.Remove("c.steps.jsonl"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "c.steps.jsonl"))
	l.crash()
	os.WriteFile(filepath.Join(dir, "a.steps.jsonl"), []byte("header\nSTEP-X-torn-and-long"), 0o600)
	os.WriteFile(filepath.Join(dir, "b.steps.jsonl"), []byte("he"), 0o600)
	if err := os.Truncate(filepath.Join(dir, "b.steps.jsonl"), 0); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "b.steps.jsonl"), []byte("hea"), 0o600)
	st, err := Replay(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := read(t, filepath.Join(dir, "a.steps.jsonl")); a != "header\nstep-1\n" {
		t.Fatalf("a: %q", a)
	}
	if b := read(t, filepath.Join(dir, "b.steps.jsonl")); b != "header\nstep-1\n" {
		t.Fatalf("b: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "c.steps.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("c made again: %v %+v", err, st)
	}
	if st.Removed != 1 || st.Written != 5 || st.Present != 1 {
		t.Fatalf("%+v", st)
	}
	// A file cut below where a write went: skipped.
	l = open(t, dir, Options{})
	journal(t, l, dir, "d.steps.jsonl", "header\n")
	journal(t, l, dir, "d.steps.jsonl", "step-1\n")
	l.crash()
	s := segs(t, dir)[0]
	b, _ := os.ReadFile(s)
	one, _ := Encode(Entry{Kind: Write, Name: "d.steps.jsonl", Off: 0, Data: []byte("header\n")})
	os.WriteFile(s, b[len(one):], 0o600) // only the second entry is left
	os.Truncate(filepath.Join(dir, "d.steps.jsonl"), 2)
	if st, err = Replay(dir, Options{}); err != nil || st.Skipped != 1 {
		t.Fatalf("%+v %v", st, err)
	}
}

// syncs records a Log's fsyncs, failing those fail says.
type syncs struct {
	mu   sync.Mutex
	got  []string
	fail func(p string) bool
}

func (s *syncs) sync(p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil && s.fail(p) {
		return errors.New("EIO")
	}
	s.got = append(s.got, filepath.Base(p))
	return nil
}

func (s *syncs) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := strings.Join(s.got, " ")
	s.got = nil
	return g
}

// TestRotate: a Sync fsyncs the segment alone; Rotate moves the appends
// to a new segment, fsyncs the old one, then the files it wrote and the
// directory, and removes it. Killed inside Rotate (an fsync of a journal
// fails, as the process would have stopped there), the old segment
// stays, and Replay finds every byte in place.
func TestRotate(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	s.take()
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "b.steps.jsonl", "header\n")
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if g := s.take(); g != "00000000000000000001.wal" {
		t.Fatalf("sync: %s", g)
	}
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	g := s.take()
	if g != "wal 00000000000000000001.wal a.steps.jsonl b.steps.jsonl "+filepath.Base(dir) &&
		g != "wal 00000000000000000001.wal b.steps.jsonl a.steps.jsonl "+filepath.Base(dir) {
		t.Fatalf("rotate: %s", g)
	}
	if n := segs(t, dir); len(n) != 1 || filepath.Base(n[0]) != "00000000000000000002.wal" {
		t.Fatalf("segments: %v", n)
	}
	if err := l.Rotate(); err != nil || s.take() != "" {
		t.Fatal("an empty segment rotated")
	}
	// Killed in the middle: the journal's fsync never happens.
	journal(t, l, dir, "a.steps.jsonl", "step-1\n")
	s.fail = func(p string) bool { return strings.HasSuffix(p, ".steps.jsonl") }
	if err := l.Rotate(); err == nil {
		t.Fatal("rotate with a failing fsync")
	}
	if n := segs(t, dir); len(n) != 2 {
		t.Fatalf("segments after a rotation that died: %v", n)
	}
	l.crash()
	st, err := Replay(dir, Options{})
	if err != nil || st.Present != 1 || st.Segments != 2 {
		t.Fatalf("%+v %v", st, err)
	}
	if a := read(t, filepath.Join(dir, "a.steps.jsonl")); a != "header\nstep-1\n" {
		t.Fatalf("%q", a)
	}
}

// TestSyncFails: a segment whose fsync failed may have lost pages; from
// then on each Sync fsyncs the files its entries wrote, and the next
// Rotate retires it by them; an fsync that keeps failing fails every
// Sync, and the first that passes makes the owed files durable.
func TestSyncFails(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	s.take()
	failing := true
	s.fail = func(p string) bool {
		return failing && (strings.HasSuffix(p, ".wal") || strings.HasSuffix(p, ".steps.jsonl"))
	}
	if err := l.Sync(); err == nil {
		t.Fatal("sync passed")
	}
	journal(t, l, dir, "b.steps.jsonl", "header\n")
	if err := l.Rotate(); err == nil {
		t.Fatal("rotate passed")
	}
	if err := l.Sync(); err == nil {
		t.Fatal("sync passed with files owed")
	}
	failing = false
	s.take()
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	g := s.take()
	if !strings.HasPrefix(g, "a.steps.jsonl b.steps.jsonl "+filepath.Base(dir)) && !strings.HasPrefix(g, "b.steps.jsonl a.steps.jsonl "+filepath.Base(dir)) ||
		!strings.HasSuffix(g, "00000000000000000002.wal") {
		t.Fatalf("syncs: %s", g)
	}
	// The retired segment stays, for replay: its journals' fsync failed
	// once, and the one that passed after proves nothing (Linux marks
	// the pages it could not write clean). Before, it was removed.
	if n := segs(t, dir); len(n) != 2 {
		t.Fatalf("segments: %v", n)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if n := segs(t, dir); len(n) != 1 || filepath.Base(n[0]) != "00000000000000000001.wal" {
		t.Fatalf("segments after Close: %v", n)
	}
	if err := l.Append("a.steps.jsonl", 7, []byte("x")); err == nil {
		t.Fatal("append after Close")
	}
}

// TestReplayKeepsLaterLines: a journal's fsync failed in a rotation, so
// its segment stayed for replay; the next segment was retired (the
// journal's fsync passed, as a second one does after an error on Linux)
// and removed. A power loss then took the pages of the first write
// (zeros on disk) and kept the later, acknowledged lines. Replay writes
// the first entry in place: before, it cut the journal at the entry's
// offset and the acknowledged lines after it were lost.
func TestReplayKeepsLaterLines(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	s.fail = func(p string) bool { return strings.HasSuffix(p, ".steps.jsonl") }
	if err := l.Rotate(); err == nil {
		t.Fatal("rotate passed")
	}
	s.fail = nil
	journal(t, l, dir, "a.steps.jsonl", "step-1\n")
	journal(t, l, dir, "a.steps.jsonl", "step-2\n")
	if err := l.Rotate(); err != nil {
		t.Fatal(err)
	}
	if n := segs(t, dir); len(n) != 2 { // the one kept, the one in use
		t.Fatalf("segments: %v", n)
	}
	l.crash()
	p := filepath.Join(dir, "a.steps.jsonl")
	want := read(t, p)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt(make([]byte, 5), 2) // the lost page: zeros
	f.Close()
	st, err := Replay(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != want || st.Written != 1 {
		t.Fatalf("after replay: %q (want %q) %+v", got, want, st)
	}
}

// TestReplayConflict: where an entry went the file holds other bytes,
// not zeros, and complete lines after them (a segment of another data
// directory, say): replay refuses, with ErrConflict, and leaves the file
// and the segment as they are.
func TestReplayConflict(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	journal(t, l, dir, "a.steps.jsonl", "step-1\n")
	l.crash()
	p := filepath.Join(dir, "a.steps.jsonl")
	other := "header\nOTHER-1\nother-2\n"
	os.WriteFile(p, []byte(other), 0o600)
	if _, err := Replay(dir, Options{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("replay: %v", err)
	}
	if got := read(t, p); got != other {
		t.Fatalf("file changed: %q", got)
	}
	if n := segs(t, dir); len(n) != 1 {
		t.Fatalf("segments: %v", n)
	}
}

// raw encodes e without Encode's checks: a segment made by something
// other than a Log.
func raw(e Entry) []byte {
	b := appendHead(nil, &e, len(e.Data))
	b = append(b, e.Data...)
	seal(b[:len(b)-len(e.Data)], e.Data)
	return b
}

// TestReplayNames: a segment whose entry checks (length, CRC) but names
// a file that is not a session's journal (the server's key, a record,
// a path out of the data directory, a NUL) stops the replay with
// ErrCorrupt before anything is written, even the entries before it:
// before, a name of [A-Za-z0-9._-] passed (replay wrote or removed the
// key), and any other ended the segment as a torn tail would, silently
// dropping what followed it.
func TestReplayNames(t *testing.T) {
	for _, bad := range []Entry{
		{Kind: Write, Name: "key", Data: []byte("not a key\n")},
		{Kind: Remove, Name: "key"},
		{Kind: Write, Name: "a.record.json", Data: []byte("{}")},
		{Kind: Remove, Name: "index.db"},
		{Kind: Write, Name: "../out.steps.jsonl", Data: []byte("x\n")},
		{Kind: Write, Name: "/tmp/out.steps.jsonl", Data: []byte("x\n")},
		{Kind: Write, Name: "b\x00.steps.jsonl", Data: []byte("x\n")},
		{Kind: Write, Name: ".b.steps.jsonl", Data: []byte("x\n")},
		{Kind: Write, Name: "wal", Data: []byte("x\n")},
		{Kind: 7, Name: "b.steps.jsonl"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "key"), []byte("the key"), 0o600)
		os.WriteFile(filepath.Join(dir, "index.db"), []byte("the index"), 0o600)
		os.MkdirAll(filepath.Join(dir, Subdir), 0o700)
		good, _ := Encode(Entry{Kind: Write, Name: "a.steps.jsonl", Data: []byte("header\n")})
		after, _ := Encode(Entry{Kind: Write, Name: "c.steps.jsonl", Data: []byte("header\n")})
		seg := append(append(good, raw(bad)...), after...)
		os.WriteFile(filepath.Join(dir, Subdir, "00000000000000000001.wal"), seg, 0o600)
		_, err := Replay(dir, Options{})
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: replay: %v", bad.Name, err)
		}
		if read(t, filepath.Join(dir, "key")) != "the key" || read(t, filepath.Join(dir, "index.db")) != "the index" {
			t.Errorf("%q: the key or the index changed", bad.Name)
		}
		for _, n := range []string{"a.steps.jsonl", "c.steps.jsonl", "a.record.json", "../out.steps.jsonl"} {
			if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
				t.Errorf("%q: %s written", bad.Name, n)
			}
		}
		if n := segs(t, dir); len(n) != 1 {
			t.Errorf("%q: segments %v", bad.Name, n)
		}
	}
}

// TestReplaySymlink: a journal's name in the data directory that is a
// symbolic link (to a file outside it) is not followed: replay fails
// and the file it points to is left as it is.
func TestReplaySymlink(t *testing.T) {
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "outside")
	os.WriteFile(out, []byte("outside\n"), 0o600)
	if err := os.Symlink(out, filepath.Join(dir, "a.steps.jsonl")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, Subdir), 0o700)
	seg, _ := Encode(Entry{Kind: Write, Name: "a.steps.jsonl", Data: []byte("header\n")})
	os.WriteFile(filepath.Join(dir, Subdir, "00000000000000000001.wal"), seg, 0o600)
	if _, err := Replay(dir, Options{}); err == nil {
		t.Fatal("replay passed")
	}
	if read(t, out) != "outside\n" {
		t.Fatal("the file outside changed")
	}
}

// TestReplayRewritesPresent: bytes the file has already are written
// again in place, so that replay's fsync writes them: after a failed
// fsync Linux leaves the pages it could not write clean in the cache,
// where a read finds them, and the next fsync writes nothing. Before,
// replay left them (the file untouched: its mtime the same), fsynced
// nothing, and removed the segment that held them.
func TestReplayRewritesPresent(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, Options{})
	journal(t, l, dir, "a.steps.jsonl", "header\n")
	l.crash()
	p := filepath.Join(dir, "a.steps.jsonl")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	st, err := Replay(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Present != 1 || !fi.ModTime().After(old) || read(t, p) != "header\n" {
		t.Fatalf("%+v, mtime %v (was %v)", st, fi.ModTime(), old)
	}
}

// TestBacklog: while the journals' fsync keeps failing in rotations,
// each retired segment stays for replay; once they pass MaxKept, every
// Append fails (ErrBacklog) rather than the log growing without bound.
// Before, nothing bounded them (a segment a second, kept until the
// disk was full).
func TestBacklog(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{fail: func(p string) bool { return strings.HasSuffix(p, ".steps.jsonl") }}
	l := open(t, dir, Options{SyncPath: s.sync, MaxKept: 100})
	var err error
	for i := 0; i < 20 && err == nil; i++ {
		p := filepath.Join(dir, "a.steps.jsonl")
		fi, _ := os.Stat(p)
		off := int64(0)
		if fi != nil {
			off = fi.Size()
		}
		if err = l.Append("a.steps.jsonl", off, []byte("step-with-some-bytes\n")); err == nil {
			if rerr := l.Rotate(); rerr == nil {
				t.Fatal("rotate passed")
			}
		}
	}
	if !errors.Is(err, ErrBacklog) {
		t.Fatalf("append: %v", err)
	}
	if n := segs(t, dir); len(n) > 4 {
		t.Fatalf("%d segments kept", len(n))
	}
}

// TestConcurrent: writers append to their own files and Sync while
// Rotate runs over and over (run with -race); then the power goes with
// the files cut to nothing but what a journal fsync of a rotation wrote
// (playing only the fsyncs the log made), and replay gives every file
// each byte a Sync acknowledged.
func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	synced := map[string]int64{} // journal → its size at its last fsync
	syncPath := func(p string) error {
		if strings.HasSuffix(p, ".steps.jsonl") {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			mu.Lock()
			synced[filepath.Base(p)] = max(synced[filepath.Base(p)], fi.Size())
			mu.Unlock()
		}
		return nil
	}
	l := open(t, dir, Options{SyncPath: syncPath, MaxSize: 512})
	acked := make([]int64, 6)
	stop := make(chan struct{})
	rotated := make(chan struct{})
	go func() {
		defer close(rotated)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := l.Rotate(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range acked {
		wg.Go(func() {
			name := fmt.Sprintf("s%d.steps.jsonl", w)
			f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE, 0o600)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			var off int64
			for i := range 200 {
				b := []byte(fmt.Sprintf("step %d of %d\n", i, w))
				if _, err := f.WriteAt(b, off); err != nil {
					t.Error(err)
					return
				}
				if err := l.Append(name, off, b); err != nil {
					t.Error(err)
					return
				}
				off += int64(len(b))
				if err := l.Sync(); err != nil {
					t.Error(err)
					return
				}
				acked[w] = off
			}
		})
	}
	wg.Wait()
	close(stop)
	<-rotated
	want := map[string]string{}
	for w := range acked {
		name := fmt.Sprintf("s%d.steps.jsonl", w)
		want[name] = read(t, filepath.Join(dir, name))
		if int64(len(want[name])) != acked[w] {
			t.Fatalf("%s: %d bytes, %d acknowledged", name, len(want[name]), acked[w])
		}
	}
	l.crash()
	for name := range want {
		os.Truncate(filepath.Join(dir, name), synced[name])
	}
	if _, err := Replay(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		if got := read(t, filepath.Join(dir, name)); got != w {
			t.Fatalf("%s after replay: %d bytes, want %d", name, len(got), len(w))
		}
	}
}

// TestOpenSyncsDir: the first Open of a data directory makes DIR/wal and
// fsyncs DIR (for the name wal) before the first segment's name is
// fsynced in DIR/wal. Before, DIR was not fsynced: only a session's
// first batch, or a rotation, happened to do it.
func TestOpenSyncsDir(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync})
	defer l.Close()
	if g := s.take(); g != filepath.Base(dir)+" "+Subdir {
		t.Fatalf("syncs: %q", g)
	}
}

// TestBacklogNoRotation: when no rotation can make the next segment (the
// fsync of DIR/wal fails), the segment in use grows; past MaxKept every
// Append fails (ErrBacklog). Before, it grew until the disk was full.
func TestBacklogNoRotation(t *testing.T) {
	dir := t.TempDir()
	s := &syncs{}
	l := open(t, dir, Options{SyncPath: s.sync, MaxKept: 100})
	s.fail = func(p string) bool { return filepath.Base(p) == Subdir }
	var err error
	var off int64
	for i := 0; i < 20 && err == nil; i++ {
		if err = l.Append("a.steps.jsonl", off, []byte("step-with-some-bytes\n")); err == nil {
			off += 21
			if rerr := l.Rotate(); rerr == nil {
				t.Fatal("rotate passed")
			}
		}
	}
	if !errors.Is(err, ErrBacklog) || off > 200 {
		t.Fatalf("append at %d: %v", off, err)
	}
}

// TestReplayZeros: a segment that ends in zeros (its size reached the
// disk, its last pages did not) ends there, a torn tail: eight zero
// bytes read as an entry of no payload whose CRC, 0, checks, and were
// taken for ErrCorrupt, which stopped the start.
func TestReplayZeros(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Subdir), 0o700)
	seg, _ := Encode(Entry{Kind: Write, Name: "a.steps.jsonl", Data: []byte("header\n")})
	seg = append(seg, make([]byte, 4096)...)
	os.WriteFile(filepath.Join(dir, Subdir, "00000000000000000001.wal"), seg, 0o600)
	st, err := Replay(dir, Options{})
	if err != nil || st.Entries != 1 || read(t, filepath.Join(dir, "a.steps.jsonl")) != "header\n" {
		t.Fatalf("%+v %v", st, err)
	}
}

// TestReplayCutCovered: at start a journal's torn tail was cut (a cut is
// not logged) and a note written in its place, then a step; the power
// went with the cut not on disk, the torn bytes still there and a page
// of the step after them. Where the note went the file holds other
// bytes, and a line ends after them: but the log writes every byte from
// there to the file's end again (the note, then the step), so replay
// cuts and writes. Before, that newline made it ErrConflict, and the
// server did not start.
func TestReplayCutCovered(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Subdir), 0o700)
	var seg []byte
	for _, e := range []Entry{
		{Kind: Write, Name: "a.steps.jsonl", Off: 0, Data: []byte("header\n")},
		{Kind: Write, Name: "a.steps.jsonl", Off: 7, Data: []byte("note-1\n")},
		{Kind: Write, Name: "a.steps.jsonl", Off: 14, Data: []byte("step-1\n")},
	} {
		b, _ := Encode(e)
		seg = append(seg, b...)
	}
	os.WriteFile(filepath.Join(dir, Subdir, "00000000000000000001.wal"), seg, 0o600)
	p := filepath.Join(dir, "a.steps.jsonl")
	os.WriteFile(p, []byte("header\nTORNTORNTORN1\n"), 0o600)
	if _, err := Replay(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "header\nnote-1\nstep-1\n" {
		t.Fatalf("%q", got)
	}
}
