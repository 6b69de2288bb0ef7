package verdict

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/format"
)

// TestRefuseClears: Refuse leaves of an outcome only the record's own
// facts, the --pubkey note and the file name. Every field is set first,
// so a field added to Outcome is cleared too, or named here as kept.
func TestRefuseClears(t *testing.T) {
	kept := map[string]bool{"Result": true, "Pinned": true, "File": true}
	var o Outcome
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		fill(v.Field(i))
	}
	o.Result.OK, o.Result.RecordID = true, "id"
	o.Refuse(format.Refuse(format.Truncated, "cut"))
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if !kept[name] && !v.Field(i).IsZero() {
			t.Errorf("Refuse left %s set", name)
		}
	}
	if o.Result.OK || o.Result.Code != format.Truncated || o.Result.Detail != "cut" || o.Result.RecordID != "id" || !o.Pinned {
		t.Errorf("refused: %+v", o.Result)
	}
	if c := format.CodeOf(o.Err()); c != format.Truncated {
		t.Errorf("Err() is %v", o.Err())
	}
}

// fill sets v to something other than its zero value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	}
}

// TestOneRefuse: no code that makes or reads verdicts sets a verdict's
// OK, Code or Detail by hand, nor builds a refused record.Result: a
// refusal is made by record.Result.Refuse (through Outcome.Refuse), so
// that whatever it must clear is cleared in one place.
func TestOneRefuse(t *testing.T) {
	dirs := []string{"../record", ".", "../policy", "../bundlecheck", "../reviewcmd", "../review", "../server",
		"../../cmd/logbook-verify", "../../cmd/logbook-review", "../.."}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					// The one place: record.Result.Refuse.
					return !(n.Name.Name == "Refuse" && n.Recv != nil && strings.HasSuffix(file, "record/verify.go"))
				case *ast.AssignStmt:
					for _, l := range n.Lhs {
						if s, ok := l.(*ast.SelectorExpr); ok && (s.Sel.Name == "OK" || s.Sel.Name == "Code") && isResult(s.X) {
							t.Errorf("%s: %s set by hand: use Refuse", fset.Position(n.Pos()), s.Sel.Name)
						}
					}
				case *ast.CompositeLit:
					if isResultType(n.Type, dir == "../record") {
						for _, e := range n.Elts {
							if kv, ok := e.(*ast.KeyValueExpr); ok {
								if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Code" || k.Name == "OK" && !isTrue(kv.Value)) {
									t.Errorf("%s: a Result built with %s: use Refuse", fset.Position(n.Pos()), k.Name)
								}
							}
						}
					}
				}
				return true
			})
		}
	}
}

// isResult: an expression that names a verdict (res, r, out.Result, …).
func isResult(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "Result"
	case *ast.Ident:
		return x.Name == "res" || x.Name == "r" || x.Name == "result" || x.Name == "v"
	}
	return false
}

// isTrue: the literal true (an accepted Result may be built whole).
func isTrue(x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == "true"
}

// isResultType: record.Result, or Result inside package record.
func isResultType(t ast.Expr, inRecord bool) bool {
	switch t := t.(type) {
	case *ast.SelectorExpr:
		id, ok := t.X.(*ast.Ident)
		return ok && id.Name == "record" && t.Sel.Name == "Result"
	case *ast.Ident:
		return inRecord && t.Name == "Result"
	}
	return false
}
