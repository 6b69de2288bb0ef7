// Package attest makes and judges attestations about a record (spec §7
// step 8, ATTEST_*): sidecar files, never inside the record, each a DSSE
// envelope (github.com/secure-systems-lab/dsse, "DSSEv1" pre-authentication
// encoding, Ed25519) whose payload, of type PayloadType, is a statement:
//
//	{"type": "recorder"|"witness", "recordId": hex64, "keyId": hex64,
//	 "observedAt": RFC 3339 UTC, "nonce"?: string,
//	 "recorder"?: {"name": string, "version": string, "sha256": hex64}}
//
// A witness says it saw the record (by recordId) signed under keyId at
// observedAt. A recorder attestation says which program captured it;
// "recorder" is present exactly when type is "recorder". Envelopes and
// statements are read with the strict reader (internal/strictjson): a
// duplicate key or a lone surrogate is refused, never resolved.
package attest

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/instant"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// PayloadType is the DSSE payloadType of a logbook attestation.
const PayloadType = "application/vnd.logbook.attestation+json"

// Statement types.
const (
	Witness  = "witness"
	Recorder = "recorder"
)

// MaxSize bounds an envelope file: a statement is a few hundred bytes.
const MaxSize = 1 << 20

// Statement is an attestation's payload.
type Statement struct {
	Type       string
	RecordID   string // the record's recordId (spec §6)
	KeyID      string // the record's keyId (spec §6)
	ObservedAt string // RFC 3339 UTC (spec §4 form)
	Nonce      string // "" when absent
	Recorder   *format.Recorder
}

// JSON returns the statement's RFC 8785 canonical form.
func (s Statement) JSON() ([]byte, error) {
	v := strictjson.Obj(
		strictjson.Member{Key: "keyId", Value: strictjson.Str(s.KeyID)},
		strictjson.Member{Key: "observedAt", Value: strictjson.Str(s.ObservedAt)},
		strictjson.Member{Key: "recordId", Value: strictjson.Str(s.RecordID)},
		strictjson.Member{Key: "type", Value: strictjson.Str(s.Type)},
	)
	if s.Nonce != "" {
		v.Members = append(v.Members, strictjson.Member{Key: "nonce", Value: strictjson.Str(s.Nonce)})
	}
	if r := s.Recorder; r != nil {
		v.Members = append(v.Members, strictjson.Member{Key: "recorder", Value: strictjson.Obj(
			strictjson.Member{Key: "name", Value: strictjson.Str(r.Name)},
			strictjson.Member{Key: "sha256", Value: strictjson.Str(r.SHA256)},
			strictjson.Member{Key: "version", Value: strictjson.Str(r.Version)},
		)})
	}
	return jcs.Append(nil, &v)
}

// PAE is DSSE's pre-authentication encoding, the bytes a signature covers:
// "DSSEv1" SP len(type) SP type SP len(body) SP body, lengths in ASCII
// decimal.
func PAE(payloadType string, body []byte) []byte {
	b := []byte("DSSEv1 ")
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(append(append(b, ' '), payloadType...), ' ')
	b = strconv.AppendInt(b, int64(len(body)), 10)
	return append(append(b, ' '), body...)
}

// Sign checks the statement's shape and returns a DSSE envelope signed by
// priv, in canonical JSON with a newline. The signature's keyid is the
// attestor's keyId (SHA-256 of its SPKI), a hint only: verifiers try their
// pinned keys.
func Sign(s Statement, priv ed25519.PrivateKey) ([]byte, error) {
	body, err := s.JSON()
	if err != nil {
		return nil, err
	}
	if _, err := parseStatement(body); err != nil {
		return nil, err
	}
	pub := priv.Public().(ed25519.PublicKey)
	sig := ed25519.Sign(priv, PAE(PayloadType, body))
	env := strictjson.Obj(
		strictjson.Member{Key: "payload", Value: strictjson.Str(base64.StdEncoding.EncodeToString(body))},
		strictjson.Member{Key: "payloadType", Value: strictjson.Str(PayloadType)},
		strictjson.Member{Key: "signatures", Value: strictjson.Arr(strictjson.Obj(
			strictjson.Member{Key: "keyid", Value: strictjson.Str(KeyID(pub))},
			strictjson.Member{Key: "sig", Value: strictjson.Str(base64.StdEncoding.EncodeToString(sig))},
		))},
	)
	out, err := jcs.Append(nil, &env)
	return append(out, '\n'), err
}

// KeyID is an attestor's keyId: SHA-256 of its 44-byte SPKI (spec §6's
// keyId, for another key).
func KeyID(pub ed25519.PublicKey) string { return record.KeyID(record.SPKI(pub)) }

// Verified is an attestation whose signature verified under a pinned key.
type Verified struct {
	Statement
	AttestorKeyID string
}

// Open reads a DSSE envelope and returns its statement once one of its
// signatures verifies under one of keys. Keys that are weak (record.WeakKey:
// small order, non-canonical, off the curve) never count: under them a
// forgery would verify. Every error is an ATTEST_INVALID reason.
func Open(envelope []byte, keys []ed25519.PublicKey) (Verified, error) {
	var out Verified
	if len(envelope) > MaxSize {
		return out, fmt.Errorf("envelope is over %d bytes", MaxSize)
	}
	env, err := strictjson.Parse(envelope, strictjson.Options{MaxDepth: 4})
	if err != nil {
		return out, fmt.Errorf("envelope is not strict JSON: %v", err)
	}
	if err := exactKeys(env, []string{"payload", "payloadType", "signatures"}, nil); err != nil {
		return out, fmt.Errorf("envelope: %v", err)
	}
	if pt, _ := env.GetString("payloadType"); pt != PayloadType {
		return out, fmt.Errorf("envelope payloadType is %q, want %q", pt, PayloadType)
	}
	payloadText, _ := env.GetString("payload")
	body, err := decode64(payloadText)
	if err != nil {
		return out, fmt.Errorf("envelope payload is not base64: %v", err)
	}
	sigs := env.Get("signatures")
	if sigs.Kind != strictjson.Array || len(sigs.Items) == 0 {
		return out, errors.New("envelope signatures is not a non-empty array")
	}
	pae := PAE(PayloadType, body)
	signer := ""
	for i := range sigs.Items {
		s := &sigs.Items[i]
		if err := exactKeys(s, []string{"sig"}, []string{"keyid"}); err != nil {
			return out, fmt.Errorf("envelope signature %d: %v", i, err)
		}
		sig, err := decode64(s.Get("sig").Str)
		if err != nil || len(sig) != ed25519.SignatureSize {
			return out, fmt.Errorf("envelope signature %d is not 64 base64 bytes", i)
		}
		for _, k := range keys {
			if signer == "" && record.WeakKey(k) == "" && ed25519.Verify(k, pae, sig) {
				signer = KeyID(k)
			}
		}
	}
	if signer == "" {
		return out, errors.New("no signature verifies under a pinned attestor key")
	}
	st, err := parseStatement(body)
	if err != nil {
		return out, err
	}
	return Verified{Statement: st, AttestorKeyID: signer}, nil
}

// Check is spec §7 step 8 for one attestation about a verified record: it
// returns the verified attestation, and a *format.RefusalError when it fails. Per attestation
// the order is: ATTEST_INVALID (unreadable, not signed by a pinned key, a
// bad statement, or another recordId), then ATTEST_KEYID_MISMATCH, then
// RECORDER_DIGEST_MISMATCH.
func Check(envelope []byte, keys []ed25519.PublicKey, recordID, keyID string, rec *format.Recorder) (Verified, error) {
	v, err := Open(envelope, keys)
	if err != nil {
		return v, format.Refuse(format.AttestInvalid, err.Error())
	}
	if v.RecordID != recordID {
		return v, format.Refuse(format.AttestInvalid, fmt.Sprintf("the %s attestation is about record %s, not this one (%s)", v.Type, v.RecordID, recordID))
	}
	if v.KeyID != keyID {
		return v, format.Refuse(format.AttestKeyIDMismatch, fmt.Sprintf("the %s attestation cites key %s, the record is signed by %s", v.Type, v.KeyID, keyID))
	}
	if v.Type == Recorder {
		if rec == nil {
			return v, format.Refuse(format.RecorderDigestMismatch, "the recorder attestation describes a recorder, and the record names none (no session.recorder)")
		}
		if *rec != *v.Recorder {
			return v, format.Refuse(format.RecorderDigestMismatch, fmt.Sprintf("the recorder attestation describes %s %s (sha256 %s), the record was captured by %s %s (sha256 %s)",
				v.Recorder.Name, v.Recorder.Version, v.Recorder.SHA256, rec.Name, rec.Version, rec.SHA256))
		}
	}
	return v, nil
}

// parseStatement reads and checks a statement's text.
func parseStatement(body []byte) (Statement, error) {
	var s Statement
	v, err := strictjson.Parse(body, strictjson.Options{MaxDepth: 2})
	if err != nil {
		return s, fmt.Errorf("statement is not strict JSON: %v", err)
	}
	if err := exactKeys(v, []string{"type", "recordId", "keyId", "observedAt"}, []string{"nonce", "recorder"}); err != nil {
		return s, fmt.Errorf("statement: %v", err)
	}
	s.Type = v.Get("type").Str
	s.RecordID = v.Get("recordId").Str
	s.KeyID = v.Get("keyId").Str
	s.ObservedAt = v.Get("observedAt").Str
	switch {
	case s.Type != Witness && s.Type != Recorder:
		return s, fmt.Errorf("statement type %q is neither %q nor %q", s.Type, Witness, Recorder)
	case !format.Hex64(s.RecordID):
		return s, errors.New("statement recordId is not 64 lowercase hex digits")
	case !format.Hex64(s.KeyID):
		return s, errors.New("statement keyId is not 64 lowercase hex digits")
	case !instant.Valid(s.ObservedAt):
		return s, fmt.Errorf("statement observedAt %q is not an RFC 3339 UTC instant", s.ObservedAt)
	}
	if n := v.Get("nonce"); n != nil {
		if n.Str == "" {
			return s, errors.New("statement nonce is empty")
		}
		s.Nonce = n.Str
	}
	r := v.Get("recorder")
	if (r != nil) != (s.Type == Recorder) {
		return s, errors.New(`statement has "recorder" exactly when its type is "recorder"`)
	}
	if r != nil {
		if err := exactKeys(r, []string{"name", "version", "sha256"}, nil); err != nil {
			return s, fmt.Errorf("statement recorder: %v", err)
		}
		s.Recorder = &format.Recorder{Name: r.Get("name").Str, Version: r.Get("version").Str, SHA256: r.Get("sha256").Str}
		if s.Recorder.Name == "" || !format.Hex64(s.Recorder.SHA256) {
			return s, errors.New("statement recorder needs a name and a sha256 of 64 lowercase hex digits")
		}
	}
	return s, nil
}

// exactKeys: v is an object whose members are all of required, some of
// optional, and nothing else; every member but "signatures" and "recorder"
// is a string.
func exactKeys(v *strictjson.Value, required, optional []string) error {
	if v == nil || v.Kind != strictjson.Object {
		return errors.New("not an object")
	}
	known := map[string]bool{}
	for _, k := range required {
		known[k] = true
		if v.Get(k) == nil {
			return fmt.Errorf("missing %q", k)
		}
	}
	for _, k := range optional {
		known[k] = true
	}
	for _, m := range v.Members {
		if !known[m.Key] {
			return fmt.Errorf("unknown member %q", m.Key)
		}
		want := strictjson.String
		switch m.Key {
		case "signatures":
			want = strictjson.Array
		case "recorder":
			want = strictjson.Object
		}
		if m.Value.Kind != want {
			return fmt.Errorf("%q has the wrong type", m.Key)
		}
	}
	return nil
}

// decode64 reads standard base64 with padding, or its URL-safe form (DSSE
// allows either), refusing anything else: no line breaks, no missing
// padding.
func decode64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("line break inside base64") // the decoders skip them even in strict mode
	}
	if b, err := base64.StdEncoding.Strict().DecodeString(s); err == nil {
		return b, nil
	}
	return base64.URLEncoding.Strict().DecodeString(s)
}
