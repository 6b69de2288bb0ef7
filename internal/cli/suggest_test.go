package cli

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestSuggest: a mistyped flag gets the flag it most likely meant; a flag
// far from every defined one gets none.
func TestSuggest(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("prog", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("harness", "", "")
	fs.String("evidence", "", "")
	fs.Bool("dry-run", false, "")
	fs.String("pubkey", "", "")
	for arg, want := range map[string]string{
		"--harnes":     "--harness",
		"-hraness":     "--harness",
		"--dryrun":     "--dry-run",
		"--pubkey=x":   "",
		"--pubkye=x":   "--pubkey",
		"--evid":       "--evidence",
		"--zzzzzzzzzz": "",
		"-x":           "",
	} {
		err := fs.Parse([]string{arg})
		if got := Suggest(fs, err); got != want {
			t.Errorf("%s: suggested %q, want %q (%v)", arg, got, want, err)
		}
	}
	if got := SuggestWord("instal", "install", "uninstall", "guard"); got != "install" {
		t.Errorf("instal: %q", got)
	}
	if got := SuggestWord("hello", "install", "uninstall", "guard"); got != "" {
		t.Errorf("hello: %q", got)
	}
	var out, errb bytes.Buffer
	fs2 := flag.NewFlagSet("prog", flag.ContinueOnError)
	fs2.String("harness", "", "")
	if code, done := Parse(fs2, []string{"--harnes", "x"}, "prog", &out, &errb); code != 2 || !done || !strings.Contains(errb.String(), "did you mean --harness?") {
		t.Errorf("Parse: %d %v %q", code, done, errb.String())
	}
}
