package tsa

import (
	"bytes"
	"crypto"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
)

// Object identifiers of RFC 3161, RFC 5652, RFC 2634 and RFC 5035.
var (
	oidTSTInfo       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
	oidContentType   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidSigningCert   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 12} // ESSCertID, SHA-1
	oidSigningCertV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47} // ESSCertIDv2
	oidExtKeyUsage   = asn1.ObjectIdentifier{2, 5, 29, 37}
	oidTimeStamping  = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 3, 8}
	oidSHA256        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidSHA384        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 2}
	oidSHA512        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 3}
)

// Info is what a token says: when (genTime) and who (the subject of the
// certificate that signed it, RFC 2253 form).
type Info struct {
	Time      time.Time
	Authority string
}

type token struct {
	ts     *timestamp.Timestamp
	p7     *pkcs7.PKCS7
	signer *x509.Certificate
}

// Inspect reads a token without trusting it: its time and authority, for a
// verifier that was given no roots. It fails on a token that cannot be
// read, has no signer certificate, or whose CMS signature does not verify.
func Inspect(der []byte) (info Info, err error) {
	defer recoverInto(&err)
	tok, err := parseToken(der)
	if err != nil {
		return info, err
	}
	return tok.info(), nil
}

// Verify judges signature.rfc3161 against the record's 64 signature bytes
// and the roots the caller trusts for time-stamping (spec §7 step 8,
// TIMESTAMP_INVALID): the CMS signature (RFC 5652) over the signed
// attributes, whose message digest covers the TSTInfo; one signer, whose
// certificate is embedded and bound by an ESS signing-certificate
// attribute (RFC 2634/5035); content types id-ct-TSTInfo; the signer's
// extended key usage is present, critical and only timeStamping (RFC 3161
// §2.3); the chain reaches roots at the token's own genTime (an expired
// authority certificate that was valid then still passes); and the imprint
// is SHA-256 of signature. The certificates in the token are
// intermediates, never roots. The error says which check failed.
func Verify(der, signature []byte, roots *x509.CertPool) (info Info, err error) {
	defer recoverInto(&err)
	if roots == nil {
		return info, errors.New("no roots given for the time-stamping authority")
	}
	tok, err := parseToken(der)
	if err != nil {
		return info, err
	}
	if err := tok.checkSelf(); err != nil {
		return info, err
	}
	if tok.ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(tok.ts.HashedMessage, Imprint(signature)) {
		return info, errors.New("the token covers other data than SHA-256 of this record's signature")
	}
	inter := x509.NewCertPool()
	for _, c := range tok.p7.Certificates {
		if c != tok.signer {
			inter.AddCert(c)
		}
	}
	_, err = tok.signer.Verify(x509.VerifyOptions{
		Roots:         roots,
		Intermediates: inter,
		CurrentTime:   tok.ts.Time,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
	})
	if err != nil {
		return info, fmt.Errorf("the authority's certificate does not chain to the given roots at the token's time %s: %v",
			tok.ts.Time.UTC().Format(time.RFC3339Nano), err)
	}
	return tok.info(), nil
}

func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("the token cannot be read (%v)", r)
	}
}

func (t *token) info() Info {
	return Info{Time: t.ts.Time.UTC(), Authority: t.signer.Subject.String()}
}

// parseToken reads a DER TimeStampToken: a CMS SignedData with one signer
// whose certificate is embedded, and a TSTInfo. The library checks the CMS
// signature only when a certificate is embedded; requiring one closes that
// gap.
func parseToken(der []byte) (*token, error) {
	if !derSequence(der) {
		return nil, errors.New("the token is not one DER SEQUENCE")
	}
	p7, err := pkcs7.Parse(der)
	if err != nil {
		// encoding/asn1's structure errors dump Go field tags: not worth
		// showing a reader.
		return nil, errors.New("the token is not a CMS SignedData (RFC 5652) that can be read")
	}
	if n := len(p7.Signers); n != 1 {
		return nil, fmt.Errorf("the token has %d signers, want 1", n)
	}
	signer := p7.GetOnlySigner()
	if signer == nil {
		return nil, errors.New("the token carries no certificate of its signer, so nothing can be checked")
	}
	ts, err := timestamp.Parse(der)
	if err != nil {
		return nil, fmt.Errorf("the token does not verify: %v", err)
	}
	if ct, err := eContentType(der); err != nil || !ct.Equal(oidTSTInfo) {
		return nil, fmt.Errorf("the token's content is not a TSTInfo (content type %v)", ct)
	}
	return &token{ts: ts, p7: p7, signer: signer}, nil
}

// checkSelf runs the checks that need no roots.
func (t *token) checkSelf() error {
	if err := t.p7.Verify(); err != nil {
		return fmt.Errorf("the token's CMS signature does not verify: %v", err)
	}
	var ct asn1.ObjectIdentifier
	if err := t.p7.UnmarshalSignedAttribute(oidContentType, &ct); err != nil || !ct.Equal(oidTSTInfo) {
		return errors.New("the token's signed content-type attribute is not id-ct-TSTInfo")
	}
	if err := t.checkSigningCert(); err != nil {
		return err
	}
	return checkEKU(t.signer)
}

// checkSigningCert: the ESS signing-certificate attribute (v1 or v2; each
// present one is checked) names the signer's certificate by its hash, so
// another certificate with the same issuer and serial cannot stand in.
func (t *token) checkSigningCert() error {
	found := false
	for _, a := range t.p7.Signers[0].AuthenticatedAttributes {
		var v2 bool
		switch {
		case a.Type.Equal(oidSigningCertV2):
			v2 = true
		case a.Type.Equal(oidSigningCert):
		default:
			continue
		}
		found = true
		h, want, err := firstCertID(a.Value.Bytes, v2)
		if err != nil {
			return fmt.Errorf("the token's signing-certificate attribute cannot be read: %v", err)
		}
		h.Write(t.signer.Raw)
		if !bytes.Equal(h.Sum(nil), want) {
			return errors.New("the token's signing-certificate attribute names another certificate than its signer's")
		}
	}
	if !found {
		return errors.New("the token has no signing-certificate attribute (RFC 3161 §2.4.2 requires one)")
	}
	return nil
}

// firstCertID reads the first ESSCertID(v2) of a SigningCertificate(V2)
// attribute value and returns its hash function and the hash it holds.
func firstCertID(value []byte, v2 bool) (hash.Hash, []byte, error) {
	var sc struct {
		Certs    []asn1.RawValue
		Policies asn1.RawValue `asn1:"optional"`
	}
	if rest, err := asn1.Unmarshal(value, &sc); err != nil || len(rest) > 0 || len(sc.Certs) == 0 {
		return nil, nil, fmt.Errorf("malformed (%v)", err)
	}
	parts, err := elements(sc.Certs[0].Bytes)
	if err != nil || len(parts) == 0 {
		return nil, nil, fmt.Errorf("malformed certificate id (%v)", err)
	}
	h := sha1.New()
	if v2 {
		h = sha256.New() // the DEFAULT of ESSCertIDv2
		if parts[0].Tag == asn1.TagSequence {
			var alg struct {
				Algorithm  asn1.ObjectIdentifier
				Parameters asn1.RawValue `asn1:"optional"`
			}
			if _, err := asn1.Unmarshal(parts[0].FullBytes, &alg); err != nil {
				return nil, nil, err
			}
			switch {
			case alg.Algorithm.Equal(oidSHA256):
			case alg.Algorithm.Equal(oidSHA384):
				h = sha512.New384()
			case alg.Algorithm.Equal(oidSHA512):
				h = sha512.New()
			default:
				return nil, nil, fmt.Errorf("unsupported hash %v", alg.Algorithm)
			}
			parts = parts[1:]
		}
	}
	if len(parts) == 0 || parts[0].Tag != asn1.TagOctetString {
		return nil, nil, errors.New("no certificate hash")
	}
	return h, parts[0].Bytes, nil
}

// checkEKU: RFC 3161 §2.3 — the extended key usage extension is present,
// critical, and holds timeStamping and nothing else.
func checkEKU(c *x509.Certificate) error {
	for _, e := range c.Extensions {
		if !e.Id.Equal(oidExtKeyUsage) {
			continue
		}
		if !e.Critical {
			return errors.New("the authority's extended key usage is not critical (RFC 3161 §2.3)")
		}
		var usages []asn1.ObjectIdentifier
		if rest, err := asn1.Unmarshal(e.Value, &usages); err != nil || len(rest) > 0 {
			return errors.New("the authority's extended key usage cannot be read")
		}
		if len(usages) != 1 || !usages[0].Equal(oidTimeStamping) {
			return fmt.Errorf("the authority's extended key usage is %v, want timeStamping alone (RFC 3161 §2.3)", usages)
		}
		return nil
	}
	return errors.New("the authority's certificate has no extended key usage; RFC 3161 §2.3 requires timeStamping, critical")
}

// eContentType returns the encapsulated content type of a CMS SignedData
// ContentInfo (RFC 5652 §5.2), which the CMS library reads but does not
// expose.
func eContentType(der []byte) (asn1.ObjectIdentifier, error) {
	var ci struct {
		ContentType asn1.ObjectIdentifier
		Content     asn1.RawValue `asn1:"explicit,tag:0"`
	}
	if _, err := asn1.Unmarshal(der, &ci); err != nil {
		return nil, err
	}
	var sd asn1.RawValue
	if _, err := asn1.Unmarshal(ci.Content.Bytes, &sd); err != nil {
		return nil, err
	}
	parts, err := elements(sd.Bytes)
	if err != nil || len(parts) < 3 {
		return nil, errors.New("malformed SignedData")
	}
	var encap struct {
		EContentType asn1.ObjectIdentifier
		EContent     asn1.RawValue `asn1:"explicit,optional,tag:0"`
	}
	if _, err := asn1.Unmarshal(parts[2].FullBytes, &encap); err != nil {
		return nil, err
	}
	return encap.EContentType, nil
}

// elements splits the contents of a constructed value into its elements.
func elements(b []byte) ([]asn1.RawValue, error) {
	var out []asn1.RawValue
	for len(b) > 0 {
		var v asn1.RawValue
		rest, err := asn1.Unmarshal(b, &v)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		b = rest
	}
	return out, nil
}

// derSequence: one DER SEQUENCE with nothing after it.
func derSequence(der []byte) bool {
	var raw asn1.RawValue
	rest, err := asn1.Unmarshal(der, &raw)
	return err == nil && len(rest) == 0 && raw.Class == asn1.ClassUniversal && raw.Tag == asn1.TagSequence && raw.IsCompound
}
