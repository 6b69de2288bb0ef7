package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/journal"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/seal/core"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// sealHere seals the one-shot session in dir into out, in this process,
// as logbook-seal --dir DIR --session ID --out OUT --goal GOAL would
// (the same bytes: TestSealHereMatchesLogbookSeal). It used to start
// logbook-seal, whose start-up (its schema validator compiles its meta
// schemas at init, then the record schema) was most of logbook-wrap
// --out's time. The journal is the one this process has just written in
// a private directory; the record's signature is checked as it is made
// (signed.AssembleWith), and its bytes must be strict JSON here;
// logbook-verify checks the rest.
func sealHere(dir, session, out, goal string, priv ed25519.PrivateKey, getenv func(string) string) error {
	now, err := cli.Now(getenv)
	if err != nil {
		return err
	}
	red, err := redact.LoadConfig(dir)
	if err != nil {
		return err
	}
	j, err := journal.Open(dir, session)
	if err != nil {
		return err
	}
	defer j.Close()
	cwd, _ := os.Getwd()
	res, err := core.Seal(j, priv, core.Options{Goal: goal, Now: now, Cwd: cwd, Redactor: red, Check: strictJSON})
	if err != nil {
		return err
	}
	// As logbook-seal without --force: never replace another record.
	old, err := os.ReadFile(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case string(old) == string(res.Record):
		return nil
	default:
		return fmt.Errorf("%s exists: refusing to replace a record", out)
	}
	return durable.WriteFile(out, res.Record)
}

func strictJSON(rec []byte) error {
	_, err := strictjson.Parse(rec, strictjson.Options{})
	return err
}
