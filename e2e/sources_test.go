package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestSourcesTracked opens every source the built commands and the CI
// scripts come from. TestMain builds the commands with `go build` in a
// subprocess, which go test's result cache cannot see; a file a test opens
// it does see, so a change to any command, package or script reruns this
// package instead of reporting a cached result for the old code.
func TestSourcesTracked(t *testing.T) {
	t.Parallel()
	n := 0
	for _, root := range []string{"../cmd", "../internal", "../hooks", "../schema", "../scripts", "../go.mod", "../go.sum"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			n++
			return f.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n < 50 {
		t.Fatalf("only %d source files found", n)
	}
}
