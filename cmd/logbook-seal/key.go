package main

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"os"

	"github.com/logbook-project/logbook/internal/cli"
	"github.com/logbook-project/logbook/internal/keys"
)

// loadKey finds the signing key (cli.SigningKeyPEM: --key FILE, else
// $LOGBOOK_SIGNING_KEY holding the PEM text, else
// ~/.config/logbook/signing.key) and parses it.
func loadKey(file string, getenv func(string) string) (ed25519.PrivateKey, error) {
	text, from, err := cli.SigningKeyPEM(file, getenv)
	if err != nil {
		return nil, err
	}
	priv, err := keys.ParsePrivateKeyPEM(text)
	if err != nil {
		return nil, fmt.Errorf("signing key %s: %w", from, err)
	}
	return priv, nil
}

// newKey writes a fresh key pair: FILE (PKCS#8 PEM, 0600) and FILE.pub
// (SPKI PEM). It refuses to overwrite an existing key.
func newKey(file string, stdout, stderr io.Writer) int {
	for _, f := range []string{file, file + ".pub"} {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(stderr, "logbook-seal: %s exists; refusing to overwrite a key\n", f)
			return 1
		}
	}
	if err := keys.WriteNew(file); err != nil {
		fmt.Fprintln(stderr, "logbook-seal:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (private, PKCS#8, mode 0600) and %s.pub (public, SPKI)\n", file, file)
	return 0
}
