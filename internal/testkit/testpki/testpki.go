// Package testpki makes certificate authorities, certificates and RFC 3161
// time-stamp tokens for tests and fixtures, byte for byte reproducibly:
// keys are Ed25519 derived from a label, and Ed25519 signatures are
// deterministic (RFC 8032). It can make what real authorities refuse to
// (a time-stamping certificate whose extended key usage is not critical,
// a token over other data, a token without its certificate), which is what
// the verifier's refusals are tested with. Never use it for real keys.
package testpki

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/url"
	"time"
)

// Key derives a test-only Ed25519 key from a label.
func Key(label string) ed25519.PrivateKey {
	seed := sha256.Sum256([]byte("logbook testpki key: " + label))
	return ed25519.NewKeyFromSeed(seed[:])
}

// Cert is a certificate and its private key.
type Cert struct {
	Cert *x509.Certificate
	Key  crypto.Signer
}

// DER returns the certificate's DER bytes.
func (c *Cert) DER() []byte { return c.Cert.Raw }

// PEM returns the certificate as a PEM "CERTIFICATE" block.
func (c *Cert) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Cert.Raw})
}

// Spec describes a certificate to issue.
type Spec struct {
	Name                string // subject common name; also seeds the key unless Key is set
	Serial              int64  // 0: derived from Name
	NotBefore, NotAfter time.Time
	CA                  bool
	// EKU lists extended key usages (OIDs); EKUCritical marks the
	// extension critical. No EKU: no extension.
	EKU         []asn1.ObjectIdentifier
	EKUCritical bool
	Emails      []string
	URIs        []string
	DNSNames    []string
	Key         crypto.Signer // nil: Key(Name)
}

// OIDTimeStamping is id-kp-timeStamping (RFC 5280 §4.2.1.12).
var OIDTimeStamping = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 8}

// OIDCodeSigning is id-kp-codeSigning.
var OIDCodeSigning = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 3}

// Issue makes a certificate described by s, signed by parent (nil:
// self-signed). It panics on a malformed spec: it is for tests.
func Issue(parent *Cert, s Spec) *Cert {
	key := s.Key
	if key == nil {
		key = Key(s.Name)
	}
	serial := s.Serial
	if serial == 0 {
		sum := sha256.Sum256([]byte(s.Name))
		serial = int64(sum[0])<<16 | int64(sum[1])<<8 | int64(sum[2]) + 1
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: s.Name, Organization: []string{"logbook tests"}},
		NotBefore:             s.NotBefore,
		NotAfter:              s.NotAfter,
		BasicConstraintsValid: true,
		IsCA:                  s.CA,
		EmailAddresses:        s.Emails,
		DNSNames:              s.DNSNames,
	}
	for _, u := range s.URIs {
		pu, err := url.Parse(u)
		if err != nil {
			panic(err)
		}
		tmpl.URIs = append(tmpl.URIs, pu)
	}
	if s.CA {
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	} else {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	}
	if len(s.EKU) > 0 {
		val, err := asn1.Marshal(s.EKU)
		if err != nil {
			panic(err)
		}
		tmpl.ExtraExtensions = append(tmpl.ExtraExtensions, pkix.Extension{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: s.EKUCritical, Value: val})
	}
	parentCert, parentKey := tmpl, key
	if parent != nil {
		parentCert, parentKey = parent.Cert, parent.Key
	}
	der, err := x509.CreateCertificate(zeros{}, tmpl, parentCert, key.Public(), parentKey)
	if err != nil {
		panic(fmt.Sprintf("testpki: issue %s: %v", s.Name, err))
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		panic(err)
	}
	return &Cert{Cert: c, Key: key}
}

// zeros is the random source for certificate creation: Ed25519 signing
// reads none, and nothing else is left to chance.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// PEMs concatenates the certificates' PEM blocks.
func PEMs(certs ...*Cert) []byte {
	var b bytes.Buffer
	for _, c := range certs {
		b.Write(c.PEM())
	}
	return b.Bytes()
}
