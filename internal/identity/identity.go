// Package identity judges a record's signerIdentity (spec §4, §7 step 8):
// an X.509 chain, leaf first, whose leaf key must be the record's signing
// key, which must reach roots the caller trusts at the signing time, and
// whose leaf must name an identity the caller allows.
package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Policy is what the caller trusts.
type Policy struct {
	Roots   *x509.CertPool // the only trust anchors; a record's own certificates never are
	Trusted []string       // identities allowed: e-mail addresses, URIs, DNS names, compared exactly
}

// Check judges certs (DER, leaf first) for a record signed by key at time
// at. It returns the matched identity, or a *format.RefusalError whose
// code is, in spec order: IDENTITY_KEY_MISMATCH (the leaf's key is not the signing
// key), IDENTITY_UNTRUSTED (no certificates, one that cannot be read, or a
// chain that does not reach p.Roots at at), IDENTITY_NOT_ALLOWED (none of
// the leaf's subject alternative names — e-mail, then URI, then DNS — is
// in p.Trusted).
func Check(certs [][]byte, key ed25519.PublicKey, at time.Time, p Policy) (name string, err error) {
	if len(certs) == 0 {
		return "", format.Refuse(format.IdentityUntrusted, "identity checks were asked for, but the record has no signerIdentity")
	}
	parsed := make([]*x509.Certificate, len(certs))
	for i, der := range certs {
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return "", format.Refuse(format.IdentityUntrusted, fmt.Sprintf("signerIdentity certificate %d cannot be read: %v", i, err))
		}
		parsed[i] = c
	}
	leaf := parsed[0]
	if pub, ok := leaf.PublicKey.(ed25519.PublicKey); !ok || !bytes.Equal(pub, key) {
		return "", format.Refuse(format.IdentityKeyMismatch, fmt.Sprintf("the leaf certificate (%s) certifies another key than the record's signing key", leaf.Subject))
	}
	inter := x509.NewCertPool()
	for _, c := range parsed[1:] {
		inter.AddCert(c)
	}
	if p.Roots == nil {
		return "", format.Refuse(format.IdentityUntrusted, "no identity roots were given")
	}
	_, err = leaf.Verify(x509.VerifyOptions{
		Roots:         p.Roots,
		Intermediates: inter,
		CurrentTime:   at,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
	})
	if err != nil {
		return "", format.Refuse(format.IdentityUntrusted, fmt.Sprintf("the chain of %s does not reach the identity roots at %s: %v",
			leaf.Subject, at.UTC().Format(time.RFC3339Nano), err))
	}
	allowed := map[string]bool{}
	for _, s := range p.Trusted {
		allowed[s] = true
	}
	var names []string
	names = append(names, leaf.EmailAddresses...)
	for _, u := range leaf.URIs {
		names = append(names, u.String())
	}
	names = append(names, leaf.DNSNames...)
	for _, n := range names {
		if allowed[n] {
			return n, nil
		}
	}
	return "", format.Refuse(format.IdentityNotAllowed, fmt.Sprintf("none of the leaf's names %q is in the trusted identities", names))
}

// ForKey checks, before sealing, that chain (leaf first) suits a record
// signed by key: the leaf certifies that very Ed25519 key. It returns the
// certificates' DER for signerIdentity.
func ForKey(chain []*x509.Certificate, key ed25519.PublicKey) ([][]byte, error) {
	if len(chain) == 0 {
		return nil, errors.New("no certificate")
	}
	if pub, ok := chain[0].PublicKey.(ed25519.PublicKey); !ok || !bytes.Equal(pub, key) {
		return nil, fmt.Errorf("the first certificate (%s) does not certify the signing key: it must come first, leaf first", chain[0].Subject)
	}
	out := make([][]byte, len(chain))
	for i, c := range chain {
		out[i] = c.Raw
	}
	return out, nil
}

// ParseRoots reads PEM "CERTIFICATE" blocks into a pool. Any other block,
// a certificate that cannot be read, or no certificate at all is an error.
func ParseRoots(text []byte) (*x509.CertPool, error) {
	certs, err := ParseChain(text)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

// ParseChain reads PEM "CERTIFICATE" blocks in order (for --cert-chain,
// leaf first). Text around the blocks is skipped, as openssl writes it.
func ParseChain(text []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		block, text = pem.Decode(text)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("PEM block %q, want CERTIFICATE", block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %v", len(out)+1, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	return out, nil
}

// ParseTrusted reads a trusted-identities file: one JSON array of strings
// (strict JSON, spec §1 rules; no duplicate keys can arise, but a
// non-string item or an empty string is refused).
func ParseTrusted(text []byte) ([]string, error) {
	v, err := strictjson.Parse(text, strictjson.Options{MaxDepth: 2})
	if err != nil {
		return nil, fmt.Errorf("not strict JSON: %v", err)
	}
	if v.Kind != strictjson.Array {
		return nil, errors.New("want a JSON array of strings")
	}
	out := make([]string, 0, len(v.Items))
	for i, it := range v.Items {
		if it.Kind != strictjson.String || it.Str == "" {
			return nil, fmt.Errorf("item %d is not a non-empty string", i)
		}
		out = append(out, it.Str)
	}
	return out, nil
}
