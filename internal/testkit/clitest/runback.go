package clitest

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// cassette copies files of the repository's testdata/runback (cassette
// fixtures made by the runback recorder, their keys) into the script's
// work directory: cassette NAME...
func cassette(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: cassette NAME...")
	}
	dir, err := repoDir()
	ts.Check(err)
	for _, name := range args {
		data, err := os.ReadFile(filepath.Join(dir, "testdata", "runback", name))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(name), data, 0o600))
	}
}

// repoDir is the directory of go.mod above the test's working directory.
func repoDir() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}
