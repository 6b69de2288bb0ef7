// Package clitest holds what the commands' testscript tests share: a
// clean environment (no key, no session directory from the developer's
// shell, a fixed clock) and commands that make sessions and keys, so a
// script about one command need not run the others.
package clitest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/seal"
)

// Params are testscript parameters for the scripts in testdata/script.
//
// Every script starts with HOME=$WORK/home, LOGBOOK_NOW set to a fixed
// instant, and no LOGBOOK_DIR, LOGBOOK_SIGNING_KEY or CLAUDE_PROJECT_DIR.
// It may use these commands besides testscript's own:
//
//	session DIR ID N   record a Claude Code session ID of N tool events in DIR
//	newkey FILE        write an Ed25519 key pair: FILE (PKCS#8 PEM) and FILE.pub
//	seal DIR ID KEY OUT  seal session ID of DIR with the key in file KEY into OUT
//	cassette NAME...   copy testdata/runback/NAME (runback cassette fixtures) into the work directory
func Params() testscript.Params {
	return testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", filepath.Join(e.WorkDir, "home"))
			e.Setenv("LOGBOOK_NOW", "2026-01-02T03:04:05Z")
			e.Setenv("LOGBOOK_DIR", "")
			e.Setenv("LOGBOOK_SIGNING_KEY", "")
			e.Setenv("CLAUDE_PROJECT_DIR", "")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"session":    session,
			"newkey":     newkey,
			"seal":       sealCmd,
			"cassette":   cassette, // runback fixtures (runback.go)
			"signpolicy": signPolicy,
		},
	}
}

func session(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: session DIR ID N")
	}
	dir, id := ts.MkAbs(args[0]), args[1]
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	for i := 0; i < n; i++ {
		p := fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t%d",`+
			`"tool_input":{"command":"echo %d"},"tool_response":{"stdout":"%d\n","stderr":"","interrupted":false},"cwd":"/work"}`, id, i, i, i)
		at := fmt.Sprintf("2026-01-02T03:04:%02dZ", i%60)
		_, err := recorder.Record(dir, []byte(p), at, "/work", recorder.Options{})
		ts.Check(err)
	}
}

func newkey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: newkey FILE")
	}
	priv, pub, err := keys.Generate()
	ts.Check(err)
	f := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(f), 0o700))
	ts.Check(os.WriteFile(f, priv, 0o600))
	ts.Check(os.WriteFile(f+".pub", pub, 0o644))
}

// signPolicy signs an organization policy as logbook-policy sign does
// (orgpolicy.Sign), for the scripts of commands that read one.
func signPolicy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: signpolicy KEY POLICY OUT")
	}
	priv, err := keys.ParsePrivateKeyPEM([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	out, _, err := orgpolicy.Sign([]byte(ts.ReadFile(args[1])), priv)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
}

func sealCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: seal DIR ID KEY OUT")
	}
	priv, err := keys.ParsePrivateKeyPEM([]byte(ts.ReadFile(args[2])))
	ts.Check(err)
	j, err := journalfile.Open(ts.MkAbs(args[0]), args[1])
	ts.Check(err)
	defer j.Close()
	res, err := seal.Seal(j, priv, seal.Options{Now: "2026-01-02T03:05:00Z"})
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[3]), res.Record, 0o644))
}
