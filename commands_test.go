package logbook_test

import (
	"bytes"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// commandBudgets cap each command's non-test lines and the internal
// packages it imports, a little above what each holds now: a command is
// flags, clock, files and exit codes, and its work belongs in a package
// (logbook-verify grew from 786 to 1,046 lines and 21 internal imports in
// one round, and was thinned twice). A command that needs more moves the
// work out rather than raising its budget; a new command gets a line here.
var commandBudgets = map[string]struct{ lines, imports int }{
	"logbook-attest":      {170, 8},
	"logbook-install":     {115, 4},
	"logbook-policy":      {680, 14}, // 14: kinds.Gated, the one list of gated events
	"logbook-review":      {20, 1},
	"logbook-review-otlp": {30, 3},
	"logbook-seal":        {490, 15},
	"logbook-server":      {845, 17}, // 845: --db, --index, the fleet's and the console's flags, each a line or two here, their work in server.ReplicaLog, indexcli, fleetcmd and server.ConsoleFlags; 15: internal/sockcred, the Unix-socket seam --listen unix: checks; 16: internal/indexcli, the session index's flags and commands (docs/index.md); 17: internal/fleet/fleetcmd, the fleet's subcommands and flags
	"logbook-verify":      {620, 12},
	"logbook-witness":     {155, 5},
	"logbook-wrap":        {515, 11},
	"record-step":         {780, 10}, // 10: internal/gitstep, record-step commit and a SessionStart's git facts (one call each)
}

// linuxAMD64 is the one platform a command's lines are counted on.
var linuxAMD64 = func() build.Context {
	c := build.Default
	c.GOOS, c.GOARCH = "linux", "amd64"
	return c
}()

// TestCommandsStayThin holds every cmd/* to its budget.
func TestCommandsStayThin(t *testing.T) {
	t.Parallel()
	dirs, err := os.ReadDir("cmd")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name := d.Name()
		seen[name] = true
		budget, ok := commandBudgets[name]
		if !ok {
			t.Errorf("cmd/%s has no budget in commandBudgets", name)
			continue
		}
		lines, imports := measureCommand(t, filepath.Join("cmd", name))
		if lines > budget.lines {
			t.Errorf("cmd/%s has %d non-test lines, over its budget of %d: move the work into a package", name, lines, budget.lines)
		}
		if len(imports) > budget.imports {
			t.Errorf("cmd/%s imports %d internal packages, over its budget of %d: %s", name, len(imports), budget.imports, strings.Join(imports, " "))
		}
	}
	for name := range commandBudgets {
		if !seen[name] {
			t.Errorf("commandBudgets names cmd/%s, which does not exist", name)
		}
	}
}

// measureCommand counts the lines of dir's non-test Go files that build
// on linux/amd64 (a platform's file and its twins for other systems are
// one piece of work, counted once) and the distinct internal packages
// they import.
func measureCommand(t *testing.T, dir string) (lines int, imports []string) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		if ok, err := linuxAMD64.MatchFile(dir, filepath.Base(file)); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(src, []byte("\n"))
		f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/logbook-project/logbook/internal/") && !set[p] {
				set[p] = true
				imports = append(imports, strings.TrimPrefix(p, "github.com/logbook-project/logbook/"))
			}
		}
	}
	return lines, imports
}
