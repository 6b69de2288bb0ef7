package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// swapped finds a step's data with two string members first.
var swapped = regexp.MustCompile(`^\{"at":"[^"]*","data":\{("[^"]+":"[^"]*"),("[^"]+":"[^"]*")`)

// TestBrowserStepsInPlace: the page hashes a step that stands in
// canonical form in the file's own bytes (js/strictjson.js's plain,
// js/verify.js's StepWalker), and any other step as written canonically.
// Each record here is good_basic.json changed in one place that changes
// its bytes but not its canonical form (a space, an escape, -0, keys out
// of order), or its content too (a \/ for a space); the page and
// logbook-verify must agree on each, the pinned key given, and the page
// must agree whole and in parts (js/split.js).
func TestBrowserStepsInPlace(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile("../testdata/records/good_basic.json")
	if err != nil {
		t.Fatal(err)
	}
	rec := string(base)
	seq2 := strings.Index(rec, `"seq":2`)
	step := strings.LastIndex(rec[:seq2], `{"at":`)
	if seq2 < 0 || step < 0 {
		t.Fatal("good_basic.json has no steps[2] as this test expects")
	}
	variants := map[string]string{
		"space after a colon":    rec[:seq2] + `"seq": 2` + rec[seq2+7:],
		"space after a brace":    rec[:step] + `{ ` + rec[step+1:],
		"space between steps":    rec[:step] + ` ` + rec[step:],
		"newline before a comma": rec[:step-1] + "\n" + rec[step-1:],
		"escaped key":            rec[:step] + `{"\u0061t":` + rec[step+6:],
		"escaped letter":         strings.Replace(rec, `"kind":"exec"`, `"kind":"\u0065xec"`, 1),
		"-0":                     strings.Replace(rec, `"seq":0`, `"seq":-0`, 1),
		"content changed (\\/)":  strings.Replace(rec, `"summary":"PostToolUse Bash`, `"summary":"PostToolUse\/Bash`, 1),
		"as sealed":              rec,
		"keys out of order":      rec[:step] + `{"kind":"exec",` + strings.Replace(rec[step+1:], `"kind":"exec",`, "", 1),
		"data's keys out of order": rec[:step] + swapped.ReplaceAllStringFunc(rec[step:], func(m string) string {
			g := swapped.FindStringSubmatch(m)
			return m[:strings.Index(m, `"data":{`)] + `"data":{` + g[2] + "," + g[1]
		}),
	}
	if !swapped.MatchString(rec[step:]) {
		t.Fatal("steps[2].data of good_basic.json has not two string members first")
	}
	dir := t.TempDir()
	pub := "../testdata/keys/fixture.key.pub"
	pem, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	for name, text := range variants {
		if text == rec && name != "as sealed" {
			t.Fatalf("%s: the change did not apply", name)
		}
		path := filepath.Join(dir, "v.json")
		writeFile(t, path, []byte(text))
		cli, err := cliVerify(path, []string{pub})
		if err != nil {
			t.Fatal(err)
		}
		page, err := b.verify([]byte(text), []string{string(pem)})
		if err != nil {
			t.Fatal(err)
		}
		if !same(page, cli) {
			t.Errorf("%s: the page and logbook-verify disagree\n page: %v\n  cli: %v", name, page, cli)
		}
		s, err := b.verifySplit([]byte(text), []string{string(pem)})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Same {
			t.Errorf("%s: the check in parts and the check whole disagree", name)
		}
		t.Logf("%s: %v (in %d parts)", name, cli, s.Split)
	}
}
