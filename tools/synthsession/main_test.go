package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/synth"
)

func TestRun(t *testing.T) {
	times := filepath.Join(t.TempDir(), "times")
	var out, errb bytes.Buffer
	if code := run([]string{"-times", times, "short"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s, _ := synth.Claude("short")
	if want := string(bytes.Join(s.Events, []byte("\n"))) + "\n"; out.String() != want {
		t.Errorf("stdout differs from synth.Claude(\"short\")")
	}
	tb, _ := os.ReadFile(times)
	if string(tb) != strings.Join(s.Times, "\n")+"\n" {
		t.Errorf("times file %q", tb)
	}
	for _, name := range append(synth.Harnesses[1:], "copilot-cli-snake", "long") {
		out.Reset()
		if code := run([]string{name}, &out, &errb); code != 0 || out.Len() == 0 {
			t.Errorf("%s: exit %d, %d bytes", name, code, out.Len())
		}
	}
	for _, args := range [][]string{{}, {"nosuch"}, {"-x", "short"}, {"a", "b"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage:") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
	// Help: on stdout, once, nothing on stderr; a bad flag: the usage
	// once on stderr.
	for _, h := range []string{"-h", "--help", "-help"} {
		out.Reset()
		errb.Reset()
		if code := run([]string{h}, &out, &errb); code != 0 || strings.Count(out.String(), "usage:") != 1 || errb.Len() != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", h, code, out.String(), errb.String())
		}
	}
	errb.Reset()
	if code := run([]string{"-x", "short"}, &out, &errb); code != 2 || strings.Count(errb.String(), "usage:") != 1 {
		t.Errorf("-x: exit %d, stderr %q", code, errb.String())
	}
	if code := run([]string{"-times", filepath.Join(t.TempDir(), "no", "such", "dir"), "short"}, &out, &errb); code != 1 {
		t.Errorf("unwritable -times: exit %d", code)
	}
}
