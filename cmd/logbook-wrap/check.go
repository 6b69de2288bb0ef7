package main

import (
	"crypto/ed25519"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/logbook-project/logbook/internal/wraprun/files"
)

// checkMaterials refuses, before the command runs, a --materials glob that
// matches no file: a typo there would record a command as having read
// nothing. (--products may match nothing yet: the command makes them.)
func checkMaterials(globs []string, cwd string) error {
	for _, g := range globs {
		ok, err := files.Matches(g, cwd)
		if err != nil {
			return fmt.Errorf("--materials %q: %v", g, err)
		}
		if !ok {
			return fmt.Errorf("--materials %q matches no file under %s: not run (check the pattern; ** matches across directories)", g, cwd)
		}
	}
	return nil
}

// checkOut refuses, before the command runs, an --out the record could
// not be written to: a directory, anything already there, or a file in a
// directory that does not exist.
func checkOut(out string) error {
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return fmt.Errorf("--out %s is a directory: give the record's file name, e.g. --out %s", out, filepath.Join(out, "record.json"))
	}
	// logbook-wrap has no --force (logbook-seal's): it never replaces a
	// record, so an existing --out would only fail after the command ran.
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("--out %s exists, and logbook-wrap never replaces a record: move or remove it first (mv %s %s.old), or give another --out", out, out, out)
	}
	dir := filepath.Dir(out)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--out %s: its directory %s does not exist: create it first (mkdir -p %s)", out, dir, dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("--out %s: %s is not a directory", out, dir)
	}
	return nil
}

// ed25519OID is id-Ed25519 (RFC 8410).
var ed25519OID = asn1.ObjectIdentifier{1, 3, 101, 112}

// keySeed reads, before the command runs, the PKCS#8 Ed25519 private
// key in text, so that the seal after it can succeed, and returns its
// 32-byte seed (the public half is derived while the command runs). It
// reads the DER with encoding/asn1 (RFC 8410: the key is an OCTET STRING
// holding the seed): crypto/x509 would slow every wrapped command's start.
func keySeed(text []byte) ([]byte, error) {
	b, _ := pem.Decode(text)
	if b == nil || b.Type != "PRIVATE KEY" {
		return nil, errors.New(`no PKCS#8 PEM block ("PRIVATE KEY"): make a key with logbook-seal --new-key FILE`)
	}
	var k struct {
		Version   int
		Algorithm struct {
			OID    asn1.ObjectIdentifier
			Params asn1.RawValue `asn1:"optional"`
		}
		Key []byte
	}
	if _, err := asn1.Unmarshal(b.Bytes, &k); err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %v", err)
	}
	if !k.Algorithm.OID.Equal(ed25519OID) {
		name := "not an Ed25519 key"
		switch k.Algorithm.OID.String() {
		case "1.2.840.10045.2.1":
			name = "an ECDSA key"
		case "1.2.840.113549.1.1.1":
			name = "an RSA key"
		}
		return nil, fmt.Errorf("the key is %s, and logbook signs with Ed25519 only: make one with logbook-seal --new-key FILE", name)
	}
	var seed []byte
	if rest, err := asn1.Unmarshal(k.Key, &seed); err != nil || len(rest) != 0 || len(seed) != ed25519.SeedSize {
		return nil, errors.New("not a PKCS#8 Ed25519 private key: the key is not a 32-byte seed")
	}
	return seed, nil
}
