package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/testkit/clitest"
)

// TestMain lets the scripts in testdata/script run this command as
// logbook-server, inside the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"logbook-server": main})
}

// TestScript runs testdata/script/*.txtar.
func TestScript(t *testing.T) {
	testscript.Run(t, clitest.Params())
}
