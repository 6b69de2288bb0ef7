package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts in testdata/script run this command as
// logbook-witness, inside the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"logbook-witness": func() {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}})
}

func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
