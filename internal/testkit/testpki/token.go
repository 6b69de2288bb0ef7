package testpki

import (
	"crypto"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"math/big"
	"time"
)

var (
	oidSignedData    = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 7, 2}
	oidTSTInfo       = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 1, 4}
	oidContentType   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 3}
	oidMessageDigest = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 4}
	oidSigningTime   = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 5}
	oidSigningCertV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}
	oidSHA256        = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 2, 1}
	oidEd25519       = asn1.ObjectIdentifier{1, 3, 101, 112}
	oidPolicy        = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}
)

// TokenSpec describes an RFC 3161 TimeStampToken to mint.
type TokenSpec struct {
	TSA     *Cert   // signer; its key must be Ed25519
	Chain   []*Cert // more certificates to embed (intermediates)
	Imprint []byte  // the SHA-256 the token covers
	Time    time.Time
	Nonce   *big.Int // nil: none
	Serial  int64

	NoCerts        bool // embed no certificate (certReq false)
	NoSigningCert  bool // leave out the ESS signing-certificate attribute
	WrongCertHash  bool // the ESS attribute names another certificate
	ContentTypeOID asn1.ObjectIdentifier
}

// Token mints a DER TimeStampToken (RFC 3161 §2.4.2: a CMS SignedData,
// RFC 5652, over a TSTInfo). It panics on a malformed spec.
func Token(s TokenSpec) []byte {
	ct := s.ContentTypeOID
	if ct == nil {
		ct = oidTSTInfo
	}
	tst := must(asn1.Marshal(tstInfo{
		Version:        1,
		Policy:         oidPolicy,
		MessageImprint: messageImprint{HashAlgorithm: pkix.AlgorithmIdentifier{Algorithm: oidSHA256, Parameters: asn1.NullRawValue}, HashedMessage: s.Imprint},
		SerialNumber:   big.NewInt(s.Serial + 1),
		GenTime:        s.Time.UTC(),
		Nonce:          s.Nonce,
	}))
	digest := sha256.Sum256(tst)
	attrs := []attribute{
		{Type: oidContentType, Values: []asn1.RawValue{raw(must(asn1.Marshal(ct)))}},
		{Type: oidSigningTime, Values: []asn1.RawValue{raw(must(asn1.Marshal(s.Time.UTC())))}},
		{Type: oidMessageDigest, Values: []asn1.RawValue{raw(must(asn1.Marshal(digest[:])))}},
	}
	if !s.NoSigningCert {
		certHash := sha256.Sum256(s.TSA.Cert.Raw)
		if s.WrongCertHash {
			certHash = sha256.Sum256([]byte("another certificate"))
		}
		attrs = append(attrs, attribute{Type: oidSigningCertV2, Values: []asn1.RawValue{raw(must(asn1.Marshal(
			signingCertificateV2{Certs: []essCertIDv2{{CertHash: certHash[:]}}})))}})
	}
	set := must(asn1.MarshalWithParams(attrs, "set")) // DER sorts the SET OF
	var setRaw asn1.RawValue
	must(asn1.Unmarshal(set, &setRaw))
	key, ok := s.TSA.Key.(ed25519.PrivateKey)
	if !ok {
		panic("testpki: token signer key must be Ed25519")
	}
	sig := must(key.Sign(nil, set, crypto.Hash(0)))
	si := signerInfo{
		Version:     1,
		SID:         issuerAndSerial{Issuer: asn1.RawValue{FullBytes: s.TSA.Cert.RawIssuer}, Serial: s.TSA.Cert.SerialNumber},
		DigestAlg:   pkix.AlgorithmIdentifier{Algorithm: oidSHA256},
		SignedAttrs: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: setRaw.Bytes},
		SigAlg:      pkix.AlgorithmIdentifier{Algorithm: oidEd25519},
		Signature:   sig,
	}
	sd := signedData{
		Version:    3,
		DigestAlgs: []pkix.AlgorithmIdentifier{{Algorithm: oidSHA256}},
		Encap: encapContent{Type: oidTSTInfo, Content: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true,
			Bytes: must(asn1.Marshal(tst))}},
		SignerInfos: []signerInfo{si},
	}
	if !s.NoCerts {
		var certs []byte
		for _, c := range append([]*Cert{s.TSA}, s.Chain...) {
			certs = append(certs, c.Cert.Raw...)
		}
		sd.Certs = asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: certs}
	}
	return must(asn1.Marshal(contentInfo{Type: oidSignedData,
		Content: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 0, IsCompound: true, Bytes: must(asn1.Marshal(sd))}}))
}

// Response wraps a token in a granted TimeStampResp (RFC 3161 §2.4.2).
func Response(token []byte) []byte {
	return must(asn1.Marshal(struct {
		Status struct{ Status int }
		Token  asn1.RawValue
	}{Token: asn1.RawValue{FullBytes: token}}))
}

// RejectedResponse is a TimeStampResp with status rejection and no token.
func RejectedResponse() []byte {
	return must(asn1.Marshal(struct{ Status struct{ Status int } }{Status: struct{ Status int }{Status: 2}}))
}

type tstInfo struct {
	Version        int
	Policy         asn1.ObjectIdentifier
	MessageImprint messageImprint
	SerialNumber   *big.Int
	GenTime        time.Time `asn1:"generalized"`
	Nonce          *big.Int  `asn1:"optional"`
}

type messageImprint struct {
	HashAlgorithm pkix.AlgorithmIdentifier
	HashedMessage []byte
}

type attribute struct {
	Type   asn1.ObjectIdentifier
	Values []asn1.RawValue `asn1:"set"`
}

type signingCertificateV2 struct{ Certs []essCertIDv2 }

type essCertIDv2 struct{ CertHash []byte } // hashAlgorithm DEFAULT sha256, issuerSerial absent

type issuerAndSerial struct {
	Issuer asn1.RawValue
	Serial *big.Int
}

type signerInfo struct {
	Version     int
	SID         issuerAndSerial
	DigestAlg   pkix.AlgorithmIdentifier
	SignedAttrs asn1.RawValue
	SigAlg      pkix.AlgorithmIdentifier
	Signature   []byte
}

type encapContent struct {
	Type    asn1.ObjectIdentifier
	Content asn1.RawValue
}

type signedData struct {
	Version     int
	DigestAlgs  []pkix.AlgorithmIdentifier `asn1:"set"`
	Encap       encapContent
	Certs       asn1.RawValue `asn1:"optional"`
	SignerInfos []signerInfo  `asn1:"set"`
}

type contentInfo struct {
	Type    asn1.ObjectIdentifier
	Content asn1.RawValue
}

func raw(der []byte) asn1.RawValue { return asn1.RawValue{FullBytes: der} }

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("testpki: %v", err))
	}
	return v
}
