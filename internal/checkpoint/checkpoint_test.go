package checkpoint_test

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/checkpoint"
)

func key(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, 32))
}

func sample() checkpoint.Checkpoint {
	return checkpoint.Checkpoint{Session: "s-1", Size: 3, Tip: strings.Repeat("a", 64),
		Time: "2026-12-01T10:00:00.5Z", Redact: strings.Repeat("b", 64)}
}

func TestSignOpen(t *testing.T) {
	priv := key(1)
	s, err := checkpoint.NewSigner("logbook.example", priv)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := s.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	want := "logbook.example\nlogbook-checkpoint/v1\nsession s-1\nsize 3\ntip " + strings.Repeat("a", 64) +
		"\ntime 2026-12-01T10:00:00.5Z\nredact " + strings.Repeat("b", 64) + "\nkey " + checkpoint.KeyID(priv.Public().(ed25519.PublicKey)) + "\n\n— logbook.example "
	if !strings.HasPrefix(string(msg), want) {
		t.Fatalf("note:\n%s\nwant prefix:\n%s", msg, want)
	}
	pub := priv.Public().(ed25519.PublicKey)
	vkey, _ := checkpoint.VerifierKey("logbook.example", pub)
	named, err := checkpoint.ParseVerifierKey([]byte(vkey + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, keys := range [][]checkpoint.Key{{{Pub: pub}}, {named}, {{Pub: key(2).Public().(ed25519.PublicKey)}, named}} {
		c, err := checkpoint.Open(msg, keys, nil)
		if err != nil || c.Session != "s-1" || c.Size != 3 || c.Origin != "logbook.example" {
			t.Fatalf("Open: %+v %v", c, err)
		}
	}
	// Refusals.
	other := key(2).Public().(ed25519.PublicKey)
	wrongName := checkpoint.Key{Name: "other.example", Pub: pub}
	cases := map[string]struct {
		msg  []byte
		keys []checkpoint.Key
		want error
	}{
		"other key":      {msg, []checkpoint.Key{{Pub: other}}, checkpoint.ErrNotSigned},
		"no key":         {msg, nil, checkpoint.ErrNotSigned},
		"other name":     {msg, []checkpoint.Key{wrongName}, checkpoint.ErrNotSigned},
		"edited text":    {bytes.Replace(msg, []byte("size 3"), []byte("size 4"), 1), []checkpoint.Key{{Pub: pub}}, checkpoint.ErrMalformed},
		"not a note":     {[]byte("hello\n"), []checkpoint.Key{{Pub: pub}}, checkpoint.ErrMalformed},
		"too large":      {bytes.Repeat([]byte("a"), checkpoint.MaxNote+1), []checkpoint.Key{{Pub: pub}}, checkpoint.ErrTooLarge},
		"weak key":       {msg, []checkpoint.Key{{Pub: pub}}, checkpoint.ErrNotSigned},
		"signed garbage": {signText(t, priv, "logbook.example\nhello\n"), []checkpoint.Key{{Pub: pub}}, checkpoint.ErrMalformed},
		"key line lies":  {signText(t, priv, strings.Replace(string(sample2(other).Text()), "", "", 1)), []checkpoint.Key{{Pub: pub}}, checkpoint.ErrKeyID},
	}
	for name, c := range cases {
		weak := func([]byte) string { return "" }
		if name == "weak key" {
			weak = func([]byte) string { return "weak" }
		}
		_, err := checkpoint.Open(c.msg, c.keys, weak)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", name, err, c.want)
		}
	}
}

func sample2(pub ed25519.PublicKey) *checkpoint.Checkpoint {
	c := sample()
	c.Origin, c.KeyID = "logbook.example", checkpoint.KeyID(pub)
	return &c
}

// signText signs any text as a note under the origin logbook.example.
func signText(t *testing.T, priv ed25519.PrivateKey, text string) []byte {
	t.Helper()
	s, err := checkpoint.NewSigner("logbook.example", priv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SignText(text)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseStrict(t *testing.T) {
	good := sample2(key(1).Public().(ed25519.PublicKey)).Text()
	if _, err := checkpoint.Parse(good); err != nil {
		t.Fatal(err)
	}
	edits := []struct{ from, to string }{
		{"size 3", "size 03"}, {"size 3", "size 0"}, {"size 3", "size -3"}, {"size 3", "size  3"},
		{"session s-1", "session ../x"}, {"session s-1", "session "}, {"tip a", "tip A"},
		{"time 2026-12-01T10:00:00.5Z", "time 2026-02-30T10:00:00Z"}, {"logbook-checkpoint/v1", "logbook-checkpoint/v2"},
		{"logbook.example\n", "{logbook\n"}, {"logbook.example\n", "a b\n"}, {"key ", "kee "},
		{"\nkey", "\nextra 1\nkey"},
	}
	for _, e := range edits {
		bad := strings.Replace(string(good), e.from, e.to, 1)
		if _, err := checkpoint.Parse([]byte(bad)); !errors.Is(err, checkpoint.ErrMalformed) {
			t.Errorf("%q -> %q: accepted", e.from, e.to)
		}
	}
	if _, err := checkpoint.Parse(good[:len(good)-1]); err == nil {
		t.Error("no final newline: accepted")
	}
}

func TestJudge(t *testing.T) {
	c := sample()
	ok := checkpoint.Opened{Checkpoint: c}
	hashes := map[int64]string{2: c.Tip}
	cases := []struct {
		cps         []checkpoint.Opened
		session     string
		count       int64
		hashes      map[int64]string
		code, level string
	}{
		{[]checkpoint.Opened{ok}, "s-1", 3, hashes, "", checkpoint.LevelServer},
		{[]checkpoint.Opened{ok}, "s-1", 5, hashes, "", checkpoint.LevelLocal},
		{nil, "s-1", 3, nil, "", checkpoint.LevelLocal},
		{[]checkpoint.Opened{ok}, "s-2", 3, hashes, checkpoint.Mismatch, ""},
		{[]checkpoint.Opened{ok}, "s-1", 3, map[int64]string{2: strings.Repeat("c", 64)}, checkpoint.Mismatch, ""},
		{[]checkpoint.Opened{ok}, "s-1", 2, nil, checkpoint.Truncated, ""},
		{[]checkpoint.Opened{{Err: checkpoint.ErrNotSigned}, ok}, "s-1", 3, hashes, checkpoint.Invalid, ""},
		{[]checkpoint.Opened{ok, {Err: checkpoint.ErrNotSigned}}, "s-1", 3, hashes, checkpoint.Invalid, ""},
	}
	for i, c := range cases {
		v := checkpoint.Judge(c.cps, c.session, c.count, c.hashes)
		if v.Code != c.code || v.Level != c.level {
			t.Errorf("case %d: got %q %q (%s), want %q %q", i, v.Code, v.Level, v.Detail, c.code, c.level)
		}
	}
}

func TestLog(t *testing.T) {
	dir := t.TempDir()
	s, _ := checkpoint.NewSigner("logbook.example", key(1))
	l, err := checkpoint.OpenLog(dir, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	var notes [][]byte
	for i := int64(1); i <= 3; i++ {
		c := sample()
		c.Size = i
		n, err := s.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, n)
		if err := l.Append(n); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	// A torn write: half of a fourth entry.
	f, _ := os.OpenFile(checkpoint.LogPath(dir, "s-1"), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(notes[0][:40])
	f.Close()
	l, err = checkpoint.OpenLog(dir, "s-1")
	if err != nil {
		t.Fatal(err)
	}
	if l.Count() != 3 || !bytes.Equal(l.Latest(), notes[2]) {
		t.Fatalf("count %d, latest %q", l.Count(), l.Latest())
	}
	if err := l.Append(notes[0]); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, _ := os.ReadFile(filepath.Join(dir, "s-1.checkpoints"))
	want := string(notes[0]) + "\n" + string(notes[1]) + "\n" + string(notes[2]) + "\n" + string(notes[0]) + "\n"
	if string(data) != want {
		t.Fatalf("log:\n%s", data)
	}
}

// TestLogCutAbove: the entries counting more steps than the journal kept
// are cut, a torn tail with them; the log then appends where they began.
func TestLogCutAbove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := checkpoint.NewSigner("logbook.example", key(1))
	l, err := checkpoint.OpenLog(dir, "s-2")
	if err != nil {
		t.Fatal(err)
	}
	var notes [][]byte
	for i := int64(1); i <= 5; i++ {
		c := sample()
		c.Size = i
		n, _ := s.Sign(c)
		notes = append(notes, n)
		if err := l.Append(n); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := l.CutAbove(5); n != 0 || err != nil {
		t.Fatalf("nothing above 5: cut %d, %v", n, err)
	}
	l.Close()
	f, _ := os.OpenFile(checkpoint.LogPath(dir, "s-2"), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(notes[0][:40]) // and a torn tail
	f.Close()
	if l, err = checkpoint.OpenLog(dir, "s-2"); err != nil {
		t.Fatal(err)
	}
	if n, err := l.CutAbove(3); n != 2 || err != nil {
		t.Fatalf("cut %d (%v), want 2", n, err)
	}
	if l.Count() != 3 || !bytes.Equal(l.Latest(), notes[2]) {
		t.Fatalf("count %d, latest %q", l.Count(), l.Latest())
	}
	if err := l.Append(notes[4]); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, _ := os.ReadFile(checkpoint.LogPath(dir, "s-2"))
	want := string(notes[0]) + "\n" + string(notes[1]) + "\n" + string(notes[2]) + "\n" + string(notes[4]) + "\n"
	if string(data) != want {
		t.Fatalf("log:\n%s", data)
	}
	if l, err = checkpoint.OpenLog(dir, "s-2"); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if n, err := l.CutAbove(0); n != 4 || err != nil || l.Count() != 0 || l.Latest() != nil {
		t.Fatalf("cut to nothing: %d %v, count %d", n, err, l.Count())
	}
}

func FuzzOpen(f *testing.F) {
	priv := key(1)
	s, _ := checkpoint.NewSigner("logbook.example", priv)
	n, _ := s.Sign(sample())
	f.Add(n)
	f.Add([]byte("logbook.example\n\n— x y\n"))
	vkey, _ := checkpoint.VerifierKey("logbook.example", priv.Public().(ed25519.PublicKey))
	f.Add([]byte(vkey))
	keys := []checkpoint.Key{{Pub: priv.Public().(ed25519.PublicKey)}}
	f.Fuzz(func(t *testing.T, msg []byte) {
		c, err := checkpoint.Open(msg, keys, nil)
		if err == nil {
			if cerr := c.Check(); cerr != nil {
				t.Fatalf("opened an ill-formed checkpoint: %v", cerr)
			}
		}
		_, _ = checkpoint.Parse(msg)
		if k, err := checkpoint.ParseVerifierKey(msg); err == nil && (len(k.Pub) != 32 || k.Name == "") {
			t.Fatalf("verifier key %q read as %+v", msg, k)
		}
	})
}

func TestCheckNote(t *testing.T) {
	s, _ := checkpoint.NewSigner("logbook.example", key(1))
	msg, err := s.Sign(sample())
	if err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.CheckNote(msg); err != nil {
		t.Fatalf("a signed checkpoint: %v", err)
	}
	text, _, _ := bytes.Cut(msg, []byte("\n\n"))
	for name, b := range map[string][]byte{
		"text only":   append(text, '\n'),
		"no sigs":     append(append([]byte{}, text...), "\n\n"...),
		"edited text": bytes.Replace(msg, []byte("size 3"), []byte("size x"), 1),
		"junk":        []byte("hello\n"),
		"too large":   bytes.Repeat([]byte("a"), checkpoint.MaxNote+1),
	} {
		if err := checkpoint.CheckNote(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
