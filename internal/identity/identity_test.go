package identity_test

import (
	"crypto/ed25519"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/identity"
	"github.com/logbook-project/logbook/internal/testkit/testpki"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 10, 0, time.UTC)

func span(name string, ca bool) testpki.Spec {
	return testpki.Spec{Name: name, CA: ca, NotBefore: t0.AddDate(0, -1, 0), NotAfter: t0.AddDate(1, 0, 0)}
}

func TestCheck(t *testing.T) {
	signing := testpki.Key("signer")
	pub := signing.Public().(ed25519.PublicKey)
	root := testpki.Issue(nil, span("identity root", true))
	other := testpki.Issue(nil, span("another root", true))
	inter := testpki.Issue(root, span("identity intermediate", true))
	leafSpec := span("dev", false)
	leafSpec.Key, leafSpec.Emails, leafSpec.URIs = signing, []string{"dev@example.com"}, []string{"https://example.com/dev"}
	leaf := testpki.Issue(inter, leafSpec)
	strangerSpec := leafSpec
	strangerSpec.Key = nil // its own key
	strangerSpec.Name = "stranger"
	stranger := testpki.Issue(inter, strangerSpec)
	otherLeaf := testpki.Issue(other, leafSpec)
	// A root made by the signer and shipped inside the record.
	selfRoot := testpki.Issue(nil, span("self-made root", true))
	selfLeaf := testpki.Issue(selfRoot, leafSpec)
	shortSpec := leafSpec
	shortSpec.NotBefore, shortSpec.NotAfter = t0.Add(-time.Hour), t0.Add(time.Hour)
	short := testpki.Issue(inter, shortSpec)

	roots := x509.NewCertPool()
	roots.AddCert(root.Cert)
	pol := identity.Policy{Roots: roots, Trusted: []string{"ci@example.com", "https://example.com/dev"}}
	der := func(cs ...*testpki.Cert) [][]byte {
		var out [][]byte
		for _, c := range cs {
			out = append(out, c.DER())
		}
		return out
	}
	cases := []struct {
		name  string
		certs [][]byte
		at    time.Time
		pol   identity.Policy
		code  format.Code
	}{
		{"good chain", der(leaf, inter), t0, pol, ""},
		{"good chain with its root inside too", der(leaf, inter, root), t0, pol, ""},
		{"leaf key is not the signing key", der(stranger, inter), t0, pol, format.IdentityKeyMismatch},
		{"chain to another root", der(otherLeaf, other), t0, pol, format.IdentityUntrusted},
		{"root only inside the record", der(selfLeaf, selfRoot), t0, pol, format.IdentityUntrusted},
		{"intermediate missing", der(leaf), t0, pol, format.IdentityUntrusted},
		{"identity not listed", der(leaf, inter), t0, identity.Policy{Roots: roots, Trusted: []string{"someone@example.com"}}, format.IdentityNotAllowed},
		{"no signerIdentity", nil, t0, pol, format.IdentityUntrusted},
		{"not a certificate", [][]byte{{0x30, 0x03, 0x02, 0x01, 0x01}}, t0, pol, format.IdentityUntrusted},
		{"valid at the signing time", der(short, inter), t0, pol, ""},
		{"expired at the signing time", der(short, inter), t0.Add(2 * time.Hour), pol, format.IdentityUntrusted},
		{"no roots", der(leaf, inter), t0, identity.Policy{Trusted: pol.Trusted}, format.IdentityUntrusted},
	}
	for _, c := range cases {
		name, err := identity.Check(c.certs, pub, c.at, c.pol)
		if code := format.CodeOf(err); code != c.code {
			t.Errorf("%s: got %q (%v), want %q", c.name, code, err, c.code)
		}
		if err == nil && name != "https://example.com/dev" {
			t.Errorf("%s: matched %q", c.name, name)
		}
	}
}

func TestParse(t *testing.T) {
	root := testpki.Issue(nil, span("r", true))
	if _, err := identity.ParseRoots(append([]byte("subject=CN=r\n"), root.PEM()...)); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "no pem here", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"} {
		if _, err := identity.ParseRoots([]byte(bad)); err == nil {
			t.Errorf("ParseRoots(%q) accepted", bad)
		}
	}
	if got, err := identity.ParseTrusted([]byte(`["a@b", "https://x/y"]`)); err != nil || strings.Join(got, ",") != "a@b,https://x/y" {
		t.Errorf("ParseTrusted: %v %v", got, err)
	}
	for _, bad := range []string{`{}`, `["a", 1]`, `[""]`, `["a"] x`, `[["a"]]`, "[\"\\ud800\"]"} {
		if _, err := identity.ParseTrusted([]byte(bad)); err == nil {
			t.Errorf("ParseTrusted(%q) accepted", bad)
		}
	}
}
