package redact

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir holds the shared test corpora, relative to this package.
const corpusDir = "../../testdata/redact"

// readLines returns the non-blank, non-comment lines of a corpus file.
func readLines(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// unescape turns the corpus escapes \n and \\ into a newline and a
// backslash; any other backslash is literal.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

type secretCase struct {
	input   string
	secrets []string
}

func secretCases(t testing.TB) []secretCase {
	var cases []secretCase
	for _, line := range readLines(t, "secrets.txt") {
		fields := strings.Split(line, "\t")
		if len(fields) < 2 {
			t.Fatalf("secrets.txt: no secret after the input: %q", line)
		}
		c := secretCase{input: unescape(fields[0])}
		for _, s := range fields[1:] {
			if !strings.Contains(c.input, s) {
				t.Fatalf("secrets.txt: secret %q is not in its input %q", s, c.input)
			}
			c.secrets = append(c.secrets, s)
		}
		cases = append(cases, c)
	}
	return cases
}

// TestSecretsCorpus checks that no planted secret survives and that the
// mask shows where it was.
func TestSecretsCorpus(t *testing.T) {
	cases := secretCases(t)
	if len(cases) < 45 {
		t.Fatalf("secrets.txt has %d cases, want at least 45", len(cases))
	}
	for _, c := range cases {
		got := String(c.input)
		for _, s := range c.secrets {
			if strings.Contains(got, s) {
				t.Errorf("secret %q survived:\n in: %q\nout: %q", s, c.input, got)
			}
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("no %s in output:\n in: %q\nout: %q", Mask, c.input, got)
		}
	}
	t.Logf("%d secret cases", len(cases))
}

// TestCleanCorpus checks that ordinary commands come out byte-identical.
// The corpus is curated, so any change is a false positive and fails.
func TestCleanCorpus(t *testing.T) {
	lines := readLines(t, "clean.txt")
	if len(lines) < 100 {
		t.Fatalf("clean.txt has %d lines, want at least 100", len(lines))
	}
	changed := 0
	for _, line := range lines {
		if got := String(line); got != line {
			changed++
			t.Errorf("false positive:\n in: %q\nout: %q", line, got)
		}
	}
	t.Logf("clean corpus: %d/%d changed (%.1f%% false positives)", changed, len(lines), 100*float64(changed)/float64(len(lines)))
}
