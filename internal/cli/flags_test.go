package cli

import (
	"bytes"
	"flag"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args           []string
		code           int
		done           bool
		stdout, stderr string
	}{
		{[]string{"--help"}, 0, true, "usage: prog [-x] FILE\n       prog --other\n\nflags:\n", ""},
		{[]string{"-h"}, 0, true, "usage: prog", ""},
		{[]string{"--version"}, 0, true, "prog ", ""},
		{[]string{"--bogus"}, 2, true, "", "flag provided but not defined: -bogus\nprog: run 'prog --help' for usage\n"},
		{[]string{"-x", "f"}, 0, false, "", ""},
	} {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.Bool("x", false, "an `x`")
		var out, errb bytes.Buffer
		code, done := Parse(fs, c.args, "prog [-x] FILE\nprog --other", &out, &errb)
		if code != c.code || done != c.done || !strings.HasPrefix(out.String(), c.stdout) || errb.String() != c.stderr {
			t.Errorf("%v: code %d done %v stdout %q stderr %q", c.args, code, done, out.String(), errb.String())
		}
		if c.stdout == "" && out.Len() > 0 {
			t.Errorf("%v: stdout %q", c.args, out.String())
		}
	}
}

func TestVersion(t *testing.T) {
	// A test binary has build info: "(devel)" or a version, and the Go
	// version; the revision is there when built from a checkout.
	v := Version("prog")
	if !strings.HasPrefix(v, "prog ") || !strings.Contains(v, " go1.") {
		t.Errorf("Version = %q", v)
	}
}
