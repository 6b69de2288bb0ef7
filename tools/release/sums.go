package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/logbook-project/logbook/internal/keys"
)

// sumFiles is SHA256SUMS for names in dir: "HEX  NAME" lines, as
// sha256sum and shasum -a 256 write and check them.
func sumFiles(dir string, names []string) ([]byte, error) {
	var b bytes.Buffer
	for _, n := range names {
		sum, err := sumFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return b.Bytes(), nil
}

func sumFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func readPrivate(file string) (ed25519.PrivateKey, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	priv, err := keys.ParsePrivateKeyPEM(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return priv, nil
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
	if !ed25519.Verify(pub, sums, sig) {
		return nil, errors.New("SHA256SUMS.sig is not a signature of SHA256SUMS by " + pubFile)
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || name == "" || strings.ContainsAny(name, `/\`) {
			return nil, fmt.Errorf("SHA256SUMS: bad line %q", sc.Text())
		}
		got, err := sumFile(filepath.Join(dir, name))
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
