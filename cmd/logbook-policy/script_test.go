package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/testkit/clitest"
)

// TestMain lets the scripts in testdata/script run this command as
// logbook-policy, inside the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"logbook-policy": func() {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}})
}

// TestScript runs testdata/script/*.txtar: sign, verify, eval and hook as
// a policy author and a harness run them.
func TestScript(t *testing.T) {
	testscript.Run(t, clitest.Params())
}
