package logbook_test

import (
	"errors"
	"flag"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// pkg is one package of the module as go/build reads it for this
// platform: its name, its files and the packages of this module it
// imports. A directory of tests only (e2e) counts with its tests' files
// and imports, since that is all it has.
type pkg struct {
	rel     string // the directory below the module root, "" for the root
	path    string // its import path
	name    string
	files   []string // paths of its Go files, from the module root
	imports []string // rel of each package of this module it imports
}

// docName is how the pages name a package: its directory, the root
// package by its name.
func docName(rel string) string {
	if rel == "" {
		return "logbook"
	}
	return rel
}

var (
	graphOnce sync.Once
	graphPkgs map[string]*pkg
	graphErr  error
)

// modulePackages reads every package of the module once per test binary,
// keyed by docName: the same directories TestLayoutTrue has always walked
// (not testdata, not hidden, not a module of its own).
func modulePackages(t *testing.T) map[string]*pkg {
	t.Helper()
	graphOnce.Do(func() { graphPkgs, graphErr = readPackages() })
	if graphErr != nil {
		t.Fatal(graphErr)
	}
	return graphPkgs
}

func readPackages() (map[string]*pkg, error) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(mod)
	if m == nil {
		return nil, errors.New("go.mod names no module")
	}
	module := string(m[1])
	out := map[string]*pkg{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir
		}
		bp, err := build.Default.ImportDir(path, 0)
		var none *build.NoGoError
		switch {
		case errors.As(err, &none):
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", path, err)
		}
		files, imports := bp.GoFiles, bp.Imports
		if len(files) == 0 { // tests only
			files = append(append([]string{}, bp.TestGoFiles...), bp.XTestGoFiles...)
			imports = append(append([]string{}, bp.TestImports...), bp.XTestImports...)
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		p := &pkg{rel: rel, path: module, name: bp.Name}
		if rel != "" {
			p.path += "/" + rel
		}
		for _, f := range files {
			p.files = append(p.files, filepath.Join(path, f))
		}
		seen := map[string]bool{}
		for _, imp := range imports {
			r, ok := "", imp == module
			if !ok && strings.HasPrefix(imp, module+"/") {
				r, ok = strings.TrimPrefix(imp, module+"/"), true
			}
			if ok && !seen[r] && r != rel {
				seen[r] = true
				p.imports = append(p.imports, r)
			}
		}
		out[docName(rel)] = p
		return nil
	})
	return out, err
}

// floors gives each package its floor: 0 for one that imports no other
// package of the module, else one more than the highest floor it imports.
func floors(pkgs map[string]*pkg) (map[string]int, error) {
	out := map[string]int{}
	var floor func(name string, path []string) (int, error)
	floor = func(name string, path []string) (int, error) {
		if f, ok := out[name]; ok {
			return f, nil
		}
		for _, p := range path {
			if p == name {
				return 0, fmt.Errorf("import cycle: %s", strings.Join(append(path, name), " → "))
			}
		}
		p := pkgs[name]
		if p == nil {
			return 0, fmt.Errorf("%s: no such package", name)
		}
		f := 0
		for _, imp := range p.imports {
			g, err := floor(docName(imp), append(path, name))
			if err != nil {
				return 0, err
			}
			f = max(f, g+1)
		}
		out[name] = f
		return f, nil
	}
	for name := range pkgs {
		if _, err := floor(name, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// layoutRow is a row of docs/layout.md's package table.
var layoutRow = regexp.MustCompile("^\\| *(\\d+) *\\| *`([^`]+)` *\\|")

// TestLayoutTrue keeps docs/layout.md true both ways: its package table
// has one row per package of the module, first cell the package's floor
// as the code gives it (0: it imports no package of the module; else one
// more than the highest floor it imports), second the package
// (`internal/x`, `journal`, `logbook` for the root), rows in floor
// order; and every cmd/ or internal/ path the page names exists. When a
// package is added, moved or starts importing another, the failures name
// the rows to change.
func TestLayoutTrue(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/layout.md")
	if err != nil {
		t.Fatal(err)
	}
	if *updateLayout {
		fl, err := floors(modulePackages(t))
		if err != nil {
			t.Fatal(err)
		}
		doc = []byte(renumberLayout(string(doc), fl))
		if err := os.WriteFile("docs/layout.md", doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errs := checkLayout(string(doc), modulePackages(t))
	for _, e := range errs {
		t.Error(e)
	}
}

var updateLayout = flag.Bool("update-layout", false, "rewrite docs/layout.md's floors and row order from the code (descriptions kept; a missing package gets a row to describe, a gone one loses its row)")

// renumberLayout gives each row of the package table the floor fl says,
// drops the rows of packages that are gone, adds a row whose description
// is "…" for each package without one (TestLayoutTrue still fails on
// it until it is described), and orders the rows by floor, then name.
func renumberLayout(text string, fl map[string]int) string {
	lines := strings.Split(text, "\n")
	first, end := -1, -1
	desc := map[string]string{}
	for i, line := range lines {
		m := layoutRow.FindStringSubmatch(line)
		if m == nil {
			if first >= 0 && end < 0 {
				end = i
			}
			continue
		}
		if first < 0 {
			first = i
		}
		desc[m[2]] = strings.TrimPrefix(line, m[0])
	}
	if first < 0 {
		return text
	}
	if end < 0 {
		end = len(lines)
	}
	names := make([]string, 0, len(fl))
	for name := range fl {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if fl[names[i]] != fl[names[j]] {
			return fl[names[i]] < fl[names[j]]
		}
		return names[i] < names[j]
	})
	var rows []string
	for _, name := range names {
		d, ok := desc[name]
		if !ok {
			d = " … |"
		}
		rows = append(rows, fmt.Sprintf("| %d | `%s` |%s", fl[name], name, d))
	}
	out := append(append(append([]string{}, lines[:first]...), rows...), lines[end:]...)
	return strings.Join(out, "\n")
}

// checkLayout returns what is wrong with layout.md's text against pkgs.
func checkLayout(text string, pkgs map[string]*pkg) []string {
	var errs []string
	fl, err := floors(pkgs)
	if err != nil {
		return []string{err.Error()}
	}
	rows := map[string]int{}
	last, lastName := -1, ""
	for i, line := range strings.Split(text, "\n") {
		m := layoutRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, name := i+1, m[2]
		f, _ := strconv.Atoi(m[1])
		if prev, dup := rows[name]; dup {
			errs = append(errs, fmt.Sprintf("docs/layout.md:%d: a second row for %s (the first is line %d): one row per package", n, name, prev))
			continue
		}
		rows[name] = n
		want, ok := fl[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("docs/layout.md:%d: a row for %s, which is no package of the module", n, name))
			continue
		}
		if f != want {
			errs = append(errs, fmt.Sprintf("docs/layout.md:%d: %s is on floor %d (it imports %s), not %d", n, name, want, importsOf(pkgs[name], fl), f))
		}
		if want < last {
			errs = append(errs, fmt.Sprintf("docs/layout.md:%d: %s (floor %d) comes after %s (floor %d): order the rows by floor", n, name, want, lastName, last))
		}
		last, lastName = want, name
	}
	names := make([]string, 0, len(pkgs))
	for name := range pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if n, ok := rows[name]; ok && strings.Contains(text, "| "+strconv.Itoa(fl[name])+" | `"+name+"` | … |") {
			errs = append(errs, fmt.Sprintf("docs/layout.md:%d: %s needs its description (\"…\" is a placeholder)", n, name))
		}
		if _, ok := rows[name]; !ok {
			errs = append(errs, fmt.Sprintf("docs/layout.md has no row for %s: add \"| %d | `%s` | … |\" among the floor-%d rows", name, fl[name], name, fl[name]))
		}
	}
	for _, m := range regexp.MustCompile("`((?:cmd|internal)/[A-Za-z0-9_./-]+?)/?`").FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(m[1]); err != nil {
			errs = append(errs, fmt.Sprintf("docs/layout.md names %s, which does not exist", m[1]))
		}
	}
	return errs
}

// importsOf says which of p's imports set its floor, for a failure
// message.
func importsOf(p *pkg, fl map[string]int) string {
	if len(p.imports) == 0 {
		return "no package of the module"
	}
	top, at := "", -1
	for _, imp := range p.imports {
		if f := fl[docName(imp)]; f > at {
			top, at = docName(imp), f
		}
	}
	return fmt.Sprintf("%s, floor %d", top, at)
}

// TestLayoutCheckerRefuses: the checker above can fail, each way.
func TestLayoutCheckerRefuses(t *testing.T) {
	t.Parallel()
	pkgs := map[string]*pkg{
		"internal/format": {rel: "internal/format"},
		"internal/jcs":    {rel: "internal/jcs", imports: []string{"internal/format"}},
		"logbook":         {rel: "", imports: []string{"internal/jcs"}},
	}
	good := "| 0 | `internal/format` | x |\n| 1 | `internal/jcs` | y |\n| 2 | `logbook` | z |\n"
	if errs := checkLayout(good, pkgs); len(errs) != 0 {
		t.Fatalf("a true page refused: %q", errs)
	}
	for _, c := range []struct{ text, want string }{
		{"| 0 | `internal/format` | x |\n| 2 | `logbook` | z |\n", "no row for internal/jcs"},
		{good + "| 1 | `internal/jcs` | again |\n", "a second row for internal/jcs"},
		{"| 0 | `internal/format` | x |\n| 0 | `internal/jcs` | y |\n| 2 | `logbook` | z |\n", "internal/jcs is on floor 1 (it imports internal/format, floor 0), not 0"},
		{"| 1 | `internal/jcs` | y |\n| 0 | `internal/format` | x |\n| 2 | `logbook` | z |\n", "internal/format (floor 0) comes after internal/jcs (floor 1)"},
		{good + "| 3 | `internal/gone` | z |\n", "internal/gone, which is no package"},
		{good + "see `internal/nowhere`\n", "names internal/nowhere, which does not exist"},
	} {
		errs := checkLayout(c.text, pkgs)
		if !strings.Contains(strings.Join(errs, "\n"), c.want) {
			t.Errorf("%q: got %q, want an error containing %q", c.text, errs, c.want)
		}
	}
	cyclic := map[string]*pkg{"a": {rel: "a", imports: []string{"b"}}, "b": {rel: "b", imports: []string{"a"}}}
	if _, err := floors(cyclic); err == nil {
		t.Error("a cycle gave floors")
	}
}
