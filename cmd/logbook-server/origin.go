package main

import (
	"bytes"
	"crypto/ed25519"
	"fmt"

	"github.com/logbook-project/logbook/internal/checkpoint"
	"github.com/logbook-project/logbook/internal/readlimit"
)

// keyOrigin picks the origin the server signs its checkpoints under. The
// name a key was made for is in KEY.vkey (--new-key --name writes it), and
// that file is what verifiers pin: without --name the server takes the
// name from it, so that a server started without --name does not sign
// under logbook-server/HOSTNAME checkpoints every verifier refuses. With
// --name, a .vkey that names another origin for the same key is a
// warning that says which flag to fix. It returns the name to use, or a
// warning and "" (the name given stands).
func keyOrigin(keyFile string, pub ed25519.PublicKey, name string, named bool) (string, string) {
	text, err := readlimit.Small(keyFile+".vkey", readlimit.Key)
	if err != nil {
		return name, "" // no .vkey: --name, else the default
	}
	k, err := checkpoint.ParseVerifierKey(bytes.TrimSpace(text))
	if err != nil || !bytes.Equal(k.Pub, pub) {
		return name, "" // not this key's: not ours to judge
	}
	if named && k.Name != name {
		return "", fmt.Sprintf("--name %s, but %s.vkey names this key %s: verifiers pinning that file refuse these checkpoints (CHECKPOINT_INVALID); drop --name to sign as %s, or give reviewers the key under %s (logbook-server --verifier-key --key %s --name %s)", name, keyFile, k.Name, k.Name, name, keyFile, name)
	}
	return k.Name, ""
}
