package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/wrap"
)

// checkMaterials refuses, before the command runs, a --materials glob that
// matches no file: a typo there would record a command as having read
// nothing. (--products may match nothing yet: the command makes them.)
func checkMaterials(globs []string, cwd string) error {
	for _, g := range globs {
		ok, err := wrap.Matches(g, cwd)
		if err != nil {
			return fmt.Errorf("--materials %q: %v", g, err)
		}
		if !ok {
			return fmt.Errorf("--materials %q matches no file under %s: not run (check the pattern; ** matches across directories)", g, cwd)
		}
	}
	return nil
}

// checkOut refuses, before the command runs, an --out the record could
// not be written to: a directory, or a file in a directory that does not
// exist.
func checkOut(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("--out %s is a directory: give the record's file name, e.g. --out %s", out, filepath.Join(out, "record.json"))
	}
	dir := filepath.Dir(out)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--out %s: its directory %s does not exist: create it first (mkdir -p %s)", out, dir, dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("--out %s: %s is not a directory", out, dir)
	}
	return nil
}
