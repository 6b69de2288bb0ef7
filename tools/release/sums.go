package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/digest"
	"github.com/logbook-project/logbook/internal/edverify"
	"github.com/logbook-project/logbook/internal/keys"
)

// sumFiles is SHA256SUMS for names in dir: "HEX  NAME" lines, as
// sha256sum and shasum -a 256 write and check them.
func sumFiles(dir string, names []string) ([]byte, error) {
	var b bytes.Buffer
	for _, n := range names {
		sum, err := digest.File(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return b.Bytes(), nil
}

// Verify checks dir's SHA256SUMS.sig under the public key in pubFile, then
// every archive SHA256SUMS names against its sum, and returns their names.
func Verify(dir, pubFile string) ([]string, error) {
	text, err := os.ReadFile(pubFile)
	if err != nil {
		return nil, err
	}
	pub, err := keys.ParsePublicKeyPEM(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", pubFile, err)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	sig, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS.sig"))
	if err != nil {
		return nil, err
	}
	// edverify, not crypto/ed25519: a small-order key verifies forgeries.
	if !edverify.Verify(pub, sums, sig) {
		return nil, errors.New("SHA256SUMS.sig is not a signature of SHA256SUMS by " + pubFile)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || name == "" || strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("SHA256SUMS: bad line %q", sc.Text())
		}
		got, err := digest.File(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if got != want {
			return nil, fmt.Errorf("%s: SHA-256 %s, SHA256SUMS says %s", name, got, want)
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, errors.New("SHA256SUMS names no archive")
	}
	return names, nil
}
