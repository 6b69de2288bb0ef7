package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryTestIsParallel keeps the package's wall time within CI's: the
// tests here mostly wait on other processes (a browser, a harness, a
// server, the demo's build), so they run side by side; one that forgets
// t.Parallel() runs alone and adds its whole time to the suite's. A test
// that truly cannot share the machine says why in a comment
// "serial: REASON" on its first line instead.
func TestEveryTestIsParallel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" || fn.Body == nil || len(fn.Body.List) == 0 {
				continue
			}
			if isParallelCall(fn.Body.List[0]) || serialReason(file, fset, fn) {
				continue
			}
			t.Errorf("%s: %s does not start with t.Parallel() (or a \"serial: REASON\" comment)", fset.Position(fn.Pos()), fn.Name.Name)
		}
	}
}

func isParallelCall(s ast.Stmt) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Parallel"
}

func serialReason(file *ast.File, fset *token.FileSet, fn *ast.FuncDecl) bool {
	line := fset.Position(fn.Body.Lbrace).Line
	for _, cg := range file.Comments {
		if fset.Position(cg.Pos()).Line == line+1 && strings.Contains(cg.Text(), "serial: ") {
			return true
		}
	}
	return false
}
