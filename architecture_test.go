package logbook_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hop is one numbered line of docs/architecture.md:
//
//  3. `internal/recorder` → `internal/hookevent` (`hookevent.ParseRedacted`): …
//
// from imports to and, when fn is given, uses it: `pkg.Func` (a function
// or variable of to, named through the import) or `pkg.Type.Method` (a
// method to declares on Type, called by from).
type hop struct {
	line           int
	flow           string
	from, to, fn   string
	qual, typ, sel string
}

var (
	hopItem = regexp.MustCompile(`^\d+\. `)
	hopLine = regexp.MustCompile("^\\d+\\. `([^`]+)` → `([^`]+)`(?: \\(`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*){1,2})`\\))?(?::|$)")
)

// parseHops reads every numbered line of the page as a hop, under the
// "## " heading it follows; a numbered line that is not a hop is an
// error, so that a typo is not skipped silently.
func parseHops(text string) ([]hop, []string) {
	var hops []hop
	var errs []string
	flow := ""
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "## ") {
			flow = strings.TrimPrefix(line, "## ")
			continue
		}
		if !hopItem.MatchString(line) {
			continue
		}
		m := hopLine.FindStringSubmatch(line)
		if m == nil {
			errs = append(errs, fmt.Sprintf("architecture.md:%d: a numbered line that is not a hop (\"N. `pkgA` → `pkgB` (`pkg.Func`): …\"): %q", i+1, line))
			continue
		}
		h := hop{line: i + 1, flow: flow, from: m[1], to: m[2], fn: m[3]}
		if h.fn != "" {
			parts := strings.Split(h.fn, ".")
			h.qual, h.sel = parts[0], parts[len(parts)-1]
			if len(parts) == 3 {
				h.typ = parts[1]
			}
		}
		hops = append(hops, h)
	}
	return hops, errs
}

// checkHop says what is wrong with h, if anything, against the code.
func checkHop(pkgs map[string]*pkg, h hop) error {
	from, to := pkgs[h.from], pkgs[h.to]
	switch {
	case from == nil:
		return fmt.Errorf("%s is no package of the module", h.from)
	case to == nil:
		return fmt.Errorf("%s is no package of the module", h.to)
	case !imports(from, to.rel):
		return fmt.Errorf("%s does not import %s", h.from, h.to)
	case h.fn == "":
		return nil
	case h.qual != to.name:
		return fmt.Errorf("%s: %s's package is named %s, not %s", h.fn, h.to, to.name, h.qual)
	}
	fset := token.NewFileSet()
	if h.typ != "" {
		ok, err := declaresMethod(fset, to, h.typ, h.sel)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s declares no method %s on %s", h.to, h.sel, h.typ)
		}
	}
	for _, file := range from.files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if uses(f, to, h) {
			return nil
		}
	}
	if h.typ != "" {
		return fmt.Errorf("%s calls no method %s (%s)", h.from, h.sel, h.fn)
	}
	return fmt.Errorf("%s does not use %s", h.from, h.fn)
}

func imports(p *pkg, rel string) bool {
	for _, imp := range p.imports {
		if imp == rel {
			return true
		}
	}
	return false
}

// uses reports whether f names to's h.sel through its import of to
// (`local.Func`, called or passed), or, for a method, calls `x.Method(…)`
// (the package imports to; the file need not).
func uses(f *ast.File, to *pkg, h hop) bool {
	local := ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == to.path {
			local = to.name
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" && h.typ == "" {
		return false // a method may be called in a file that does not name its package
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if found {
			return false
		}
		if h.typ != "" {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == h.sel {
				found = true
			}
			return true
		}
		s, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := s.X.(*ast.Ident); ok && x.Name == local && s.Sel.Name == h.sel {
			found = true
		}
		return true
	})
	return found
}

// declaresMethod reports whether p declares method sel on typ (or *typ).
func declaresMethod(fset *token.FileSet, p *pkg, typ, sel string) (bool, error) {
	for _, file := range p.files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return false, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || fd.Name.Name != sel {
				continue
			}
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if ix, ok := rt.(*ast.IndexExpr); ok { // a generic receiver
				rt = ix.X
			}
			if id, ok := rt.(*ast.Ident); ok && id.Name == typ {
				return true, nil
			}
		}
	}
	return false, nil
}

// TestArchitectureTrue holds docs/architecture.md to the code: each
// flow's hops are imports that exist, and each function a hop names is
// used where the hop says. When a package is renamed or a call moves,
// the failure names the line to change.
func TestArchitectureTrue(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	hops, errs := parseHops(string(doc))
	for _, e := range errs {
		t.Error(e)
	}
	pkgs := modulePackages(t)
	perFlow := map[string]int{}
	for _, h := range hops {
		perFlow[h.flow]++
		if err := checkHop(pkgs, h); err != nil {
			t.Errorf("docs/architecture.md:%d: %s → %s: %v", h.line, h.from, h.to, err)
		}
	}
	if len(perFlow) < 4 {
		t.Errorf("docs/architecture.md has hops under %d headings, want the four flows", len(perFlow))
	}
	for flow, n := range perFlow {
		if n < 3 {
			t.Errorf("docs/architecture.md: %q has %d hops", flow, n)
		}
	}
}

// TestArchitectureCheckerRefuses: the checker above fails a wrong hop,
// each way it can be wrong.
func TestArchitectureCheckerRefuses(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	good := "## f\n" +
		"1. `cmd/record-step` → `journal` (`journal.Record`): the hook's event\n" +
		"2. `internal/journalfile` → `internal/chain` (`chain.Link`)\n" +
		"3. `internal/recorder` → `internal/journalfile` (`journalfile.Journal.AppendNow`): a method\n" +
		"4. `journal` → `internal/recorder`\n"
	hops, errs := parseHops(good)
	if len(errs) != 0 || len(hops) != 4 {
		t.Fatalf("parse: %d hops, %q", len(hops), errs)
	}
	for _, h := range hops {
		if err := checkHop(pkgs, h); err != nil {
			t.Errorf("a true hop refused: %+v: %v", h, err)
		}
	}
	for _, c := range []struct{ line, want string }{
		{"1. `internal/format` → `internal/record`", "does not import"},
		{"1. `internal/nowhere` → `internal/format`", "no package"},
		{"1. `cmd/record-step` → `journal` (`journal.Harness`)", "does not use journal.Harness"},
		{"1. `cmd/record-step` → `journal` (`recorder.Record`)", "named journal, not recorder"},
		{"1. `internal/recorder` → `internal/journalfile` (`journalfile.Journal.Nope`)", "declares no method Nope"},
		{"1. `internal/recorder` → `internal/journalfile` (`journalfile.Journal.Repair`)", "calls no method Repair"},
	} {
		hops, errs := parseHops(c.line)
		if len(errs) != 0 || len(hops) != 1 {
			t.Fatalf("%q: %d hops, %q", c.line, len(hops), errs)
		}
		if err := checkHop(pkgs, hops[0]); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.line, err, c.want)
		}
	}
	for _, bad := range []string{"1. `a` -> `b`", "2. a → b", "3. `a` → `b` (journal.Record)"} {
		if _, errs := parseHops(bad); len(errs) != 1 {
			t.Errorf("%q: not refused as a hop (%q)", bad, errs)
		}
	}
}
