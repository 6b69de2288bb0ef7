package keys

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/readlimit"
)

// TestReadPublic: the one loader of key files. A key over the limit, a
// device or a FIFO is a named error, not read to its end; a bad key names
// the flag and the file; a --trust file may hold several keys.
func TestReadPublic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, pub1, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	_, pub2, _ := Generate()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := write("one.pub", pub1)
	two := write("two.pub", append(append([]byte{}, pub1...), pub2...))
	big := write("big.pub", bytes.Repeat([]byte("A"), readlimit.Key+1))
	bad := write("bad.pub", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))

	if ks, err := ReadPublicFiles("--pubkey", []string{one, one}); err != nil || len(ks) != 2 {
		t.Fatalf("two --pubkey files: %d keys, %v", len(ks), err)
	}
	if _, text, err := ReadPublic("--pubkey", one); err != nil || !bytes.Equal(text, pub1) {
		t.Fatalf("the text as read: %v", err)
	}
	if _, err := ReadPublicFiles("--pubkey", []string{big}); !errors.Is(err, readlimit.ErrTooLarge) {
		t.Errorf("a key file over the limit: %v", err)
	}
	if _, err := ReadPublicSet("--trust", []string{big}); !errors.Is(err, readlimit.ErrTooLarge) {
		t.Errorf("a --trust file over the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, _, err := ReadPublic("--attestor-key", "/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero") {
			t.Errorf("/dev/zero as a key: %v", err)
		}
	}
	if _, err := ReadPublicFiles("--attestor-key", []string{bad}); err == nil || !strings.HasPrefix(err.Error(), "--attestor-key "+bad+": ") {
		t.Errorf("a certificate as a key: %v", err)
	}
	if ks, err := ReadPublicSet("--trust", []string{two, one}); err != nil || len(ks) != 3 {
		t.Fatalf("--trust with two keys in a file: %d keys, %v", len(ks), err)
	}
	if _, err := ReadPublicSet("--trust", []string{write("empty.pub", []byte("no pem"))}); err == nil || !strings.Contains(err.Error(), "no PEM public key") {
		t.Errorf("a --trust file without a key: %v", err)
	}
	if _, err := ReadPublicSet("--trust", []string{write("mixed.pub", append(append([]byte{}, pub1...), bytes.TrimSpace([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))...))}); err == nil || !strings.Contains(err.Error(), "key 2") {
		t.Errorf("a --trust file with a bad second key: %v", err)
	}
}

// TestReadPrivate: a private-key file is read as a public one is, under
// readlimit.Key (logbook-server --rotate-key once read it whole), and a
// file that holds no Ed25519 PKCS#8 key names the flag and the file.
func TestReadPrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	priv, pub, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want, _ := ParsePrivateKeyPEM(priv)
	if k, err := ReadPrivate("--key", write("k", priv)); err != nil || !k.Equal(want) {
		t.Fatalf("a key file: %v", err)
	}
	big := write("big", append(append([]byte{}, priv...), bytes.Repeat([]byte("\n"), readlimit.Key)...))
	if _, err := ReadPrivate("--rotate-key", big); !errors.Is(err, readlimit.ErrTooLarge) {
		t.Errorf("a key file over the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadPrivate("--key", "/dev/zero"); !errors.Is(err, readlimit.ErrNotRegular) {
			t.Errorf("/dev/zero as a key: %v", err)
		}
	}
	p := write("k.pub", pub)
	if _, err := ReadPrivate("--key", p); err == nil || !strings.HasPrefix(err.Error(), "--key "+p+": ") {
		t.Errorf("a public key as the private one: %v", err)
	}
}
