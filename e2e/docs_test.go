package e2e

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/testkit/corpora"
)

// headings returns the "## N. Title" headings of a Markdown file, by N.
func headings(t *testing.T, path string) map[string]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^## (\d+)\. (.*)$`).FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = m[2]
	}
	return out
}

// TestSpecCitationsResolve: every "spec §N" in the code and docs names a
// section of docs/record-format.md, so a citation resolves inside the
// repository.
func TestSpecCitationsResolve(t *testing.T) {
	t.Parallel()
	own := headings(t, "../docs/record-format.md")
	cite := regexp.MustCompile(`spec §(\d+)`)
	n := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".md")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range cite.FindAllStringSubmatch(string(b), -1) {
			n++
			if own[m[1]] == "" {
				t.Errorf("%s cites spec §%s, which docs/record-format.md lacks", p, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("found only %d citations", n)
	}
}

// TestRecordFormatInStep holds docs/record-format.md to the normative
// spec (conformance: the spec lives in the shared folder): the same
// numbered sections with the same titles, every refusal code and every
// field the spec names, and no sentence of the spec copied.
func TestRecordFormatInStep(t *testing.T) {
	t.Parallel()
	spec := corpora.Require(t, "spec/record-format.md", "docs/record-format.md against the normative spec")
	sb, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	ob, err := os.ReadFile("../docs/record-format.md")
	if err != nil {
		t.Fatal(err)
	}
	theirs, ours := headings(t, spec), headings(t, "../docs/record-format.md")
	if len(theirs) < 8 {
		t.Fatalf("spec has %d numbered sections", len(theirs))
	}
	for n, title := range theirs {
		if ours[n] != title {
			t.Errorf("section %s: spec %q, docs %q", n, title, ours[n])
		}
	}
	for n := range ours {
		if theirs[n] == "" {
			t.Errorf("docs/record-format.md has a section %s the spec lacks", n)
		}
	}
	// Every code and every backquoted field name of the spec is covered.
	for _, m := range regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_.]*)`").FindAllStringSubmatch(string(sb), -1) {
		if !strings.Contains(string(ob), m[1]) {
			t.Errorf("the spec names %q; docs/record-format.md does not", m[1])
		}
	}
	// No sentence of the spec copied: no run of 12 words in common.
	words := func(s string) []string {
		return strings.Fields(strings.ToLower(regexp.MustCompile("[^A-Za-z0-9 ]+").ReplaceAllString(s, " ")))
	}
	seen := map[string]bool{}
	sw := words(string(sb))
	for i := 0; i+12 <= len(sw); i++ {
		seen[strings.Join(sw[i:i+12], " ")] = true
	}
	ow := words(string(ob))
	for i := 0; i+12 <= len(ow); i++ {
		if k := strings.Join(ow[i:i+12], " "); seen[k] {
			t.Errorf("docs/record-format.md repeats the spec's words: %q", k)
		}
	}
}

// anchors returns the anchors GitHub gives a Markdown page's headings:
// lower case, punctuation dropped, spaces as hyphens.
func anchors(t *testing.T, path string) map[string]bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
	out := map[string]bool{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(text, -1) {
		h := drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), "")
		out[strings.ReplaceAll(h, " ", "-")] = true
	}
	return out
}

// pendingDocs are pages other work of this round adds; the README links
// them already.
var pendingDocs = map[string]bool{"server.md": true, "checkpoint.md": true, "runback.md": true, "review.md": true, "bundle.md": true}

// TestDocsLinks: every relative link in README.md and docs/ leads to a
// file of the repository, and to a heading of it when it names one; and
// the README stays short.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../docs/*.md")
	files = append(files, "../README.md")
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Join(filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil && !pendingDocs[filepath.Base(p)] {
				t.Errorf("%s links %s, which does not exist", f, target)
				continue
			}
			if anchor := strings.TrimPrefix(m[2], "#"); anchor != "" && strings.HasSuffix(p, ".md") && !anchors(t, p)[anchor] {
				t.Errorf("%s links %s#%s: %s has no such heading (a section renamed or cut?)", f, target, anchor, target)
			}
		}
	}
	rf, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	n := 0
	for sc := bufio.NewScanner(rf); sc.Scan(); n++ {
	}
	if n > 250 {
		t.Errorf("README.md has %d lines, at most 250", n)
	}
}
