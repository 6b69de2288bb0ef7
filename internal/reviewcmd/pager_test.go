package reviewcmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestPagerChoice(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "less"},
		{map[string]string{"PAGER": "more"}, "more"},
		{map[string]string{"PAGER": "more", "LOGBOOK_PAGER": "most"}, "most"},
		{map[string]string{"PAGER": "cat"}, ""},
	} {
		if got := pagerCommand(env(c.env)); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
	if long([]byte("a\nb\n"), 0) || long([]byte("a\nb\n"), 3) || !long([]byte("a\nb\nc\n"), 3) {
		t.Error("long")
	}
}

// TestNoPagerOffTerminal: output to a file or pipe is never paged nor
// coloured, whatever PAGER says.
func TestNoPagerOffTerminal(t *testing.T) {
	dir := t.TempDir()
	rec, _ := reviewtest.Record(reviewtest.Session)
	p := filepath.Join(dir, "r.json")
	os.WriteFile(p, rec, 0o644)
	f, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run([]string{p}, f, &stderr, env(map[string]string{"PAGER": "false"}))
	f.Close()
	out, _ := os.ReadFile(filepath.Join(dir, "out"))
	if code != 0 || !strings.HasPrefix(string(out), "OK recordId=") || bytes.Contains(out, []byte("\x1b[")) {
		t.Fatalf("%d %q %s", code, out[:min(len(out), 80)], stderr.String())
	}
	if isTerminal(f) || isTerminal(io.Discard) {
		t.Error("a file is not a terminal")
	}
}

// BenchmarkReviewCommand100k: logbook-review on a 100,000-step record
// file, as the command runs it: read, verify, join, print.
func BenchmarkReviewCommand100k(b *testing.B) {
	rec, err := reviewtest.Record(reviewtest.Repeat(100_000))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "big.record.json")
	if err := os.WriteFile(p, rec, 0o644); err != nil {
		b.Fatal(err)
	}
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	b.SetBytes(int64(len(rec)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run([]string{p}, io.Discard, io.Discard, env(nil)); code != 0 {
			b.Fatal(code)
		}
	}
}

// TestDefaultPager: Windows has no less; no pager unless one is named.
func TestDefaultPager(t *testing.T) {
	if defaultPager("windows") != "" || defaultPager("darwin") != "less" || defaultPager("linux") != "less" {
		t.Error("defaultPager")
	}
}
