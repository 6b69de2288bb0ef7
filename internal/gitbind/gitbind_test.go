package gitbind

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

const good = `{"v":"logbook/commit-note@0","recordId":"b5012138fb88d3abd02e2f1818e46ffe6524b87f8c09da8aa04587c22d40bfcf","session":"s1","step":2,"level":"local"}`

func TestParseNote(t *testing.T) {
	bs, err := ParseNote([]byte(good + "\n" + strings.Replace(good, `"s1"`, `"s2"`, 1) + "\n"))
	if err != nil || len(bs) != 2 || bs[0].Session != "s1" || bs[1].Session != "s2" || bs[0].Step != 2 {
		t.Fatalf("%+v %v", bs, err)
	}
	if got := string(bs[0].line()); got != good {
		t.Errorf("line %s, want %s", got, good)
	}
	bad := []string{
		"", "garbage", "{}", good + "x",
		strings.Replace(good, `"step":2`, `"step":2.0`, 1),
		strings.Replace(good, `"step":2`, `"step":-1`, 1),
		strings.Replace(good, `"step":2`, `"step":"2"`, 1),
		strings.Replace(good, `@0"`, `@1"`, 1),
		strings.Replace(good, `"local"`, `"high"`, 1),
		strings.Replace(good, `"b50`, `"B50`, 1),
		strings.Replace(good, `}`, `,"url":"https://x"}`, 1),
		strings.Replace(good, `"session":"s1",`, `"session":"s1","session":"s2",`, 1),
		good + "\n\n" + good,
	}
	for _, b := range bad {
		if _, err := ParseNote([]byte(b)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v, want ErrMalformed", b, err)
		}
	}
	// A 10 MB note is refused by its size, not read line by line.
	huge := bytes.Repeat([]byte("a"), 10<<20)
	if _, err := ParseNote(huge); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "over") {
		t.Errorf("10 MB: %v", err)
	}
}

// FuzzParseNote: any note is refused with ErrMalformed or read into
// bindings whose lines read back the same.
func FuzzParseNote(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(good + "\n" + good))
	f.Add([]byte(`{"v":1}`))
	f.Fuzz(func(t *testing.T, note []byte) {
		bs, err := ParseNote(note)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%v is not ErrMalformed", err)
			}
			return
		}
		for _, b := range bs {
			again, err := ParseNote(b.line())
			if err != nil || len(again) != 1 || again[0] != b {
				t.Fatalf("%+v reads back as %+v %v", b, again, err)
			}
		}
	})
}

// A session sealed again (Codex's next turn, a resumed session) rebinds
// its commits to its newer record: the older record's line goes (its
// file was sealed over, and a binding to it would be RECORD_MISSING);
// another session's line stays.
func TestAddLineReplacesTheSessionsEarlierSeal(t *testing.T) {
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "c"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	id := func(c string) string { return strings.Repeat(c, 64) }
	for _, b := range []Binding{
		{V: Version, RecordID: id("a"), Session: "s1", Step: 2, Level: "local"},
		{V: Version, RecordID: id("b"), Session: "s2", Step: 5, Level: "local"},
		{V: Version, RecordID: id("c"), Session: "s1", Step: 2, Level: "local"},
	} {
		if err := addLine(repo, "HEAD", b); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command("git", "-C", repo, "notes", "--ref", NoteRef, "show", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bs, err := ParseNote(out)
	if err != nil || len(bs) != 2 || bs[0].RecordID != id("b") || bs[1].RecordID != id("c") {
		t.Fatalf("note %s: %+v %v", out, bs, err)
	}
}

// FuzzParseTrailer: whatever a commit's Logbook-Record trailers say,
// ParseTrailer answers ErrMalformed or at most MaxTrailerSessions valid
// session ids, without panicking.
func FuzzParseTrailer(f *testing.F) {
	for _, s := range []string{"", "s-1", "s-1, s-2", ",", " , ", "../etc", "s-1,s-1", strings.Repeat("a,", 17) + "a", strings.Repeat("x", 200), "s\x00", "ß-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseTrailer(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%q: untyped %v", s, err)
			}
			return
		}
		if len(out) == 0 || len(out) > MaxTrailerSessions {
			t.Fatalf("%q: %d sessions", s, len(out))
		}
	})
}
