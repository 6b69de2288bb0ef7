package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/gitbind"
	"github.com/logbook-project/logbook/internal/gitfacts"
	"github.com/logbook-project/logbook/internal/githook"
	"github.com/logbook-project/logbook/internal/gitstep"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/journalfile"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/seal"
	"github.com/logbook-project/logbook/internal/sealmark"
	pjournal "github.com/logbook-project/logbook/journal"
)

// recordStepMain is record-step's two git paths as the scripts run them:
// "record-step commit" (what the post-commit hook githook writes runs)
// and one hook event on stdin, a SessionStart adding the repository's
// state: the same calls cmd/record-step makes (gitstep.CommitHook,
// journalfile.Record, gitstep.StartHook).
func recordStepMain() {
	if len(os.Args) > 1 && os.Args[1] == "commit" {
		os.Exit(gitstep.CommitHook(os.Args[2:], os.Stdout, os.Stderr, os.Getenv))
	}
	payload, _ := io.ReadAll(os.Stdin)
	dir, err := cli.Dir("", os.Getenv)
	if err == nil {
		var ev pjournal.Event
		ev, err = pjournal.Record(dir, payload, pjournal.EventOptions{Now: gitstep.Now(os.Getenv)})
		if err == nil && kinds.SessionStart(ev.Name) {
			gitstep.StartHook(dir, ev.Session, os.Getenv, func(msg string) { os.Stderr.WriteString(msg + "\n") })
		}
	}
	if err != nil {
		os.Stderr.WriteString("record-step: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// commitCmds are the scripts' git commands:
//
//	posthook REPO                 install the post-commit hook calling record-step
//	sealgit DIR ID KEY OUT        seal as logbook-seal does: the state at the seal, then the notes
//	bindnote REPO REV RECORD SESSION STEP   write a binding naming RECORD's id (a forged or copied note)
var commitCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"posthook": func(ts *testscript.TestScript, neg bool, args []string) {
		var exe string
		for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(d, "record-step"); exists(p) {
				exe = p
				break
			}
		}
		if exe == "" {
			ts.Fatalf("record-step not on PATH")
		}
		_, err := githook.Install(ts.MkAbs(args[0]), exe, "", "")
		ts.Check(err)
	},
	"sealgit": func(ts *testscript.TestScript, neg bool, args []string) {
		dir, id := ts.MkAbs(args[0]), args[1]
		now := func() string { return ts.Getenv("LOGBOOK_NOW") }
		repo, err := gitbind.BeforeSeal(dir, id, now)
		ts.Check(err)
		priv, err := keys.ParsePrivateKeyPEM([]byte(ts.ReadFile(args[2])))
		ts.Check(err)
		j, err := journalfile.Open(dir, id)
		ts.Check(err)
		res, err := seal.Seal(j, priv, seal.Options{Now: now()})
		j.Close()
		ts.Check(err)
		out := ts.MkAbs(args[3])
		ts.Check(os.WriteFile(out, res.Record, 0o644))
		ts.Check(sealmark.Write(dir, sealmark.Mark{Session: id, Record: out, Steps: res.Steps, At: now()}))
		noted, err := gitbind.AfterSeal(repo, out, "local")
		ts.Check(err)
		ts.Logf("noted %d commit(s)", len(noted))
	},
	"bindnote": func(ts *testscript.TestScript, neg bool, args []string) {
		repo := ts.MkAbs(args[0])
		res := record.Verify([]byte(ts.ReadFile(args[2])), record.Options{})
		if res.RecordID == "" {
			ts.Fatalf("%s: %s", args[2], res.Detail)
		}
		step, err := strconv.Atoi(args[4])
		ts.Check(err)
		note := `{"v":"` + gitbind.Version + `","recordId":"` + res.RecordID + `","session":"` + args[3] + `","step":` + strconv.Itoa(step) + `,"level":"local"}` + "\n"
		id, err := gitfacts.Output(repo, 128, "rev-parse", args[1])
		ts.Check(err)
		_, err = gitfacts.Input(repo, bytes.NewReader([]byte(note)), 4096, "notes", "--ref", gitbind.NoteRef, "add", "-f", "-F", "-", strings.TrimSpace(string(id)))
		ts.Check(err)
	},
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
