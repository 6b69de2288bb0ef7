package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/durable"
	"github.com/logbook-project/logbook/internal/keys"
)

// loadKey finds the signing key: --key FILE, else $LOGBOOK_SIGNING_KEY
// holding the PEM text (for CI secrets), else ~/.config/logbook/signing.key.
func loadKey(file string, getenv func(string) string) (ed25519.PrivateKey, error) {
	var text []byte
	var from string
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("signing key: %w", err)
		}
		text, from = b, file
	case getenv("LOGBOOK_SIGNING_KEY") != "":
		text, from = []byte(getenv("LOGBOOK_SIGNING_KEY")), "$LOGBOOK_SIGNING_KEY"
		if !strings.Contains(string(text), "-----BEGIN") {
			return nil, errors.New("$LOGBOOK_SIGNING_KEY holds no PEM text: it must hold the key itself (use --key FILE for a path)")
		}
	default:
		home := getenv("HOME")
		if home == "" {
			return nil, errors.New("no signing key: pass --key FILE or set LOGBOOK_SIGNING_KEY")
		}
		from = filepath.Join(home, ".config", "logbook", "signing.key")
		b, err := os.ReadFile(from)
		if err != nil {
			return nil, fmt.Errorf("no signing key: pass --key FILE, set LOGBOOK_SIGNING_KEY, or create %s with --new-key (%v)", from, err)
		}
		text = b
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
	privPEM, pubPEM, err := keys.Generate()
	if err == nil {
		err = os.MkdirAll(filepath.Dir(file), 0o700)
	}
	if err == nil {
		err = durable.WriteFileMode(file, privPEM, 0o600)
	}
	if err == nil {
		err = durable.WriteFileMode(file+".pub", pubPEM, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "logbook-seal:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (private, PKCS#8, mode 0600) and %s.pub (public, SPKI)\n", file, file)
	return 0
}
