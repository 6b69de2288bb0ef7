package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/testkit/clitest"
)

// TestMain lets the scripts in testdata/script run this command as
// logbook-verify, inside the test binary.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"logbook-verify": main, "record-step": recordStepMain})
}

// TestScript runs testdata/script/*.txtar: the command as a user or a
// harness runs it, with exit codes, stdout, stderr and the files it leaves.
//
// $LOGGED is testdata/bundles/logged: a server-sealed record, its
// checkpoint and tlog-proof, damaged copies and policies (bundlelog_test.go).
// $ATTESTATION is testdata/attestation: session attestation bundles about
// that record (internal/sessionattest's TestFixtures).
func TestScript(t *testing.T) {
	p := clitest.Params()
	logged, err := filepath.Abs(loggedDir)
	if err != nil {
		t.Fatal(err)
	}
	attestation, err := filepath.Abs("../../testdata/attestation")
	if err != nil {
		t.Fatal(err)
	}
	for name, cmd := range commitCmds {
		p.Cmds[name] = cmd
	}
	setup := p.Setup
	p.Setup = func(e *testscript.Env) error {
		e.Setenv("LOGGED", logged)
		e.Setenv("ATTESTATION", attestation)
		return setup(e)
	}
	testscript.Run(t, p)
}
