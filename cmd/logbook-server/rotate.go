package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/keyperm"
	"github.com/logbook-project/logbook/internal/keys"
	"github.com/logbook-project/logbook/internal/rotation"
)

// rotateKey hands the server's key over (docs/key-rotation.md): the old
// key (--key) and the new one sign a rotation note, appended to
// DATA/key-rotations. The server is then restarted with the new key; it
// refuses to start with the old one. $LOGBOOK_NOW fixes the time (tests).
func rotateKey(c config, old ed25519.PrivateKey, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(err error) int {
		fmt.Fprintln(stderr, "logbook-server: --rotate-key:", err)
		return 1
	}
	if how, err := keyperm.Exposed(c.rotateKey); err == nil && how != "" {
		return fail(fmt.Errorf("%s is readable or writable by others (%s): %s", c.rotateKey, how, keyperm.Fix))
	}
	newKey, err := keys.ReadPrivate("--rotate-key", c.rotateKey)
	if err != nil {
		fmt.Fprintln(stderr, "logbook-server:", err)
		return 1
	}
	data := c.data
	if data == "" {
		data = getenv("STATE_DIRECTORY")
	}
	if data == "" {
		data = "logbook-server-data"
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return fail(err)
	}
	// The chain must end at the old key: a rotation from a key already
	// handed over would fork the server's history.
	if _, err := rotation.Load(data, c.name, old.Public().(ed25519.PublicKey)); err != nil {
		return fail(err)
	}
	at, err := instant.Now(getenv("LOGBOOK_NOW"), time.Now)
	if err != nil {
		return fail(err)
	}
	now, _ := time.Parse(time.RFC3339, at)
	r, err := rotation.Sign(c.name, old, newKey, now)
	if err != nil {
		return fail(err)
	}
	if err := rotation.Append(data, r); err != nil {
		return fail(err)
	}
	vkey, _ := checkpoint.VerifierKey(c.name, r.New)
	fmt.Fprintf(stdout, "rotated %s: key %s hands over to %s from %s\n", c.name, checkpoint.KeyID(r.Old), checkpoint.KeyID(r.New), r.At.Format(time.RFC3339))
	fmt.Fprintf(stdout, "new verifier key: %s\n", vkey)
	fmt.Fprintf(stdout, "rotation note appended to %s; restart logbook-server with --key %s\n", filepath.Join(data, rotation.File), c.rotateKey)
	return 0
}
