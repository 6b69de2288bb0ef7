package reviewcmd

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/testkit/reviewtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"logbook-review": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) },
		// mkrecord FILE [PUBFILE]: the synthesized test session, sealed
		// with reviewtest.Key; its public key to PUBFILE.
		"mkrecord": func() { os.Exit(mkrecord(os.Args[1:])) },
		// mkprogress FILE: the same session as an in-progress file.
		"mkprogress": func() { os.Exit(mkprogress(os.Args[1:])) },
		// mkcheckpoint NOTE PUB: a server's signed checkpoint counting
		// every step of the mkrecord session, and the server's key.
		"mkcheckpoint": func() { os.Exit(mkcheckpoint(os.Args[1:])) },
	})
}

func TestScript(t *testing.T) {
	// $LOGGED: a server-sealed record with its checkpoint and tlog-proof
	// (testdata/bundles/logged, made by cmd/logbook-verify's tests).
	logged, err := filepath.Abs("../../testdata/bundles/logged")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{Dir: "testdata/script", Setup: func(e *testscript.Env) error {
		e.Setenv("LOGGED", logged)
		return nil
	}})
}

func mkrecord(args []string) int {
	rec, err := reviewtest.Record(reviewtest.Session)
	if err == nil {
		err = os.WriteFile(args[0], rec, 0o644)
	}
	if err == nil && len(args) > 1 {
		err = writePub(args[1], reviewtest.Key)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func mkprogress(args []string) int {
	steps, _, _, err := reviewtest.Steps(reviewtest.Session, reviewtest.Start)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The canonical array's items are separated by "," between "}" and "{".
	body := strings.ReplaceAll(string(steps[1:len(steps)-1]), "},{\"at\"", "}\n{\"at\"")
	file := `{"format":"logbook/in-progress@0","session":"s1","cwd":"/w","harness":"claude-code"}` + "\n" + body + "\n"
	if err := os.WriteFile(args[0], []byte(file), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func mkcheckpoint(args []string) int {
	server := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, 32))
	signer, err := checkpoint.NewSigner("logbook.example", server)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rec, _ := reviewtest.Record(reviewtest.Session)
	var v struct{ ChainTip string }
	json.Unmarshal(rec, &v)
	note, err := signer.Sign(checkpoint.Checkpoint{Session: "s1", Size: int64(len(reviewtest.Session)), Tip: v.ChainTip,
		Time: "2026-05-01T10:00:23Z", Redact: strings.Repeat("0", 64)})
	if err == nil {
		err = os.WriteFile(args[0], note, 0o644)
	}
	if err == nil {
		err = writePub(args[1], server)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// writePub writes key's public half to path in the project's format.
func writePub(path string, key ed25519.PrivateKey) error {
	_, pub, err := keys.MarshalPair(key, key.Public().(ed25519.PublicKey))
	if err != nil {
		return err
	}
	return os.WriteFile(path, pub, 0o644)
}
