package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/testkit/clitest"
)

// TestMain lets the scripts in testdata/script run this command as
// logbook-install, inside the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"logbook-install": main})
}

// TestScript runs testdata/script/*.txtar: the command as a user or a
// harness runs it, with exit codes, stdout, stderr and the files it leaves.
func TestScript(t *testing.T) {
	testscript.Run(t, clitest.Params())
}
