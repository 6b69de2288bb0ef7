package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/testkit/clitest"
)

// asMain, set in a child's environment, makes TestMain run main.
const asMain = "RECORD_STEP_AS_MAIN"

// TestMain lets the scripts in testdata/script run this command as
// record-step, inside the test binary.
func TestMain(m *testing.M) {
	if os.Getenv(asMain) != "" { // a child of TestOversizePayloadRSS
		os.Args = append([]string{"record-step"}, os.Args[1:]...)
		main()
	}
	testscript.Main(m, map[string]func(){"record-step": main})
}

// TestScript runs testdata/script/*.txtar: the command as a user or a
// harness runs it, with exit codes, stdout, stderr and the files it leaves.
func TestScript(t *testing.T) {
	testscript.Run(t, clitest.Params())
}
