package attest_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/logbook-project/logbook/internal/attest"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/testkit/testpki"
)

var (
	recordID = strings.Repeat("1a", 32)
	keyID    = strings.Repeat("2b", 32)
	rec      = &format.Recorder{Name: "record-step", Version: "v1.2.3", SHA256: strings.Repeat("3c", 32)}
	witness  = testpki.Key("witness")
	builder  = testpki.Key("builder")
	pinned   = []ed25519.PublicKey{witness.Public().(ed25519.PublicKey), builder.Public().(ed25519.PublicKey)}
)

func witnessStatement() attest.Statement {
	return attest.Statement{Type: attest.Witness, RecordID: recordID, KeyID: keyID, ObservedAt: "2026-03-01T10:05:00Z", Nonce: "n-1"}
}

func recorderStatement(r format.Recorder) attest.Statement {
	return attest.Statement{Type: attest.Recorder, RecordID: recordID, KeyID: keyID, ObservedAt: "2026-03-01T10:05:00Z", Recorder: &r}
}

func sign(t *testing.T, s attest.Statement, k ed25519.PrivateKey) []byte {
	t.Helper()
	env, err := attest.Sign(s, k)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestPAE(t *testing.T) {
	// The DSSE protocol's own example.
	if got := string(attest.PAE("http://example.com/HelloWorld", []byte("hello world"))); got != "DSSEv1 29 http://example.com/HelloWorld 11 hello world" {
		t.Fatalf("PAE %q", got)
	}
}

// envelope builds an envelope by hand, signed by k over body (or not).
func envelope(payloadType string, body []byte, k ed25519.PrivateKey) string {
	sig := ed25519.Sign(k, attest.PAE(payloadType, body))
	return `{"payload":"` + base64.StdEncoding.EncodeToString(body) + `","payloadType":"` + payloadType +
		`","signatures":[{"sig":"` + base64.StdEncoding.EncodeToString(sig) + `"}]}`
}

func TestCheck(t *testing.T) {
	otherRec := *rec
	otherRec.SHA256 = strings.Repeat("4d", 32)
	wrongKey := witnessStatement()
	wrongKey.KeyID = strings.Repeat("5e", 32)
	wrongRecord := witnessStatement()
	wrongRecord.RecordID = strings.Repeat("6f", 32)
	good := sign(t, witnessStatement(), witness)
	goodBody, _ := witnessStatement().JSON()
	edited := witnessStatement()
	edited.Nonce = "n-2"
	editedBody, _ := edited.JSON()
	tampered := bytes.Replace(good, []byte(base64.StdEncoding.EncodeToString(goodBody)), []byte(base64.StdEncoding.EncodeToString(editedBody)), 1)
	if bytes.Equal(tampered, good) {
		t.Fatal("tamper did not apply")
	}

	stranger := testpki.Key("stranger")
	statementText, _ := witnessStatement().JSON()
	cases := []struct {
		name     string
		env      []byte
		recorder *format.Recorder
		code     format.Code
		typ      string
	}{
		{"good witness", good, rec, "", attest.Witness},
		{"good recorder", sign(t, recorderStatement(*rec), builder), rec, "", attest.Recorder},
		{"witness on a record without recorder", good, nil, "", attest.Witness},
		{"keyId of another key", sign(t, wrongKey, witness), rec, format.AttestKeyIDMismatch, ""},
		{"recorder with another digest", sign(t, recorderStatement(otherRec), builder), rec, format.RecorderDigestMismatch, ""},
		{"recorder attestation, record names no recorder", sign(t, recorderStatement(*rec), builder), nil, format.RecorderDigestMismatch, ""},
		{"another recordId", sign(t, wrongRecord, witness), rec, format.AttestInvalid, ""},
		{"signed by a key not pinned", sign(t, witnessStatement(), stranger), rec, format.AttestInvalid, ""},
		{"payload edited after signing", tampered, rec, format.AttestInvalid, ""},
		{"not JSON", []byte("{"), rec, format.AttestInvalid, ""},
		{"duplicate key", []byte(strings.Replace(envelope(attest.PayloadType, statementText, witness), `{"payload"`, `{"payloadType":"x","payload"`, 1)), rec, format.AttestInvalid, ""},
		{"unknown envelope member", []byte(strings.Replace(envelope(attest.PayloadType, statementText, witness), `{"payload"`, `{"extra":"x","payload"`, 1)), rec, format.AttestInvalid, ""},
		{"other payloadType", []byte(envelope("application/vnd.in-toto+json", statementText, witness)), rec, format.AttestInvalid, ""},
		{"statement with a duplicate key", []byte(envelope(attest.PayloadType, []byte(strings.Replace(string(statementText), `{"keyId"`, `{"keyId":"x","keyId"`, 1)), witness)), rec, format.AttestInvalid, ""},
		{"statement with a lone surrogate", []byte(envelope(attest.PayloadType, []byte(strings.Replace(string(statementText), `"nonce":"n-1"`, `"nonce":"\ud800"`, 1)), witness)), rec, format.AttestInvalid, ""},
		{"statement with an unknown member", []byte(envelope(attest.PayloadType, []byte(strings.Replace(string(statementText), `{"keyId"`, `{"extra":1,"keyId"`, 1)), witness)), rec, format.AttestInvalid, ""},
		{"witness statement carrying a recorder", []byte(envelope(attest.PayloadType, []byte(strings.Replace(string(statementText), `"witness"}`, `"witness","recorder":{}}`, 1)), witness)), rec, format.AttestInvalid, ""},
		{"bad observedAt", []byte(envelope(attest.PayloadType, []byte(strings.Replace(string(statementText), `2026-03-01T10:05:00Z`, `2026-02-30T10:05:00Z`, 1)), witness)), rec, format.AttestInvalid, ""},
		{"line break in base64", bytes.Replace(good, []byte(`"payload":"`), []byte(`"payload":"\n`), 1), rec, format.AttestInvalid, ""},
		{"no signatures", []byte(`{"payload":"e30=","payloadType":"` + attest.PayloadType + `","signatures":[]}`), rec, format.AttestInvalid, ""},
	}
	for _, c := range cases {
		v, err := attest.Check(c.env, pinned, recordID, keyID, c.recorder)
		if code := format.CodeOf(err); code != c.code {
			t.Errorf("%s: got %q (%v), want %q", c.name, code, err, c.code)
			continue
		}
		if err == nil && (v.Type != c.typ || v.AttestorKeyID == "") {
			t.Errorf("%s: %+v", c.name, v)
		}
	}
}

// TestWeakAttestorKey: under the identity point, R = identity and S = 0
// verify for any message in crypto/ed25519; a pinned weak key must never
// make an attestation valid.
func TestWeakAttestorKey(t *testing.T) {
	weak := make([]byte, 32)
	weak[0] = 1
	forged := make([]byte, 64)
	forged[0] = 1
	body, _ := witnessStatement().JSON()
	if !ed25519.Verify(weak, attest.PAE(attest.PayloadType, body), forged) {
		t.Fatal("crypto/ed25519 no longer accepts the small-order forgery; the test would test nothing")
	}
	env := `{"payload":"` + base64.StdEncoding.EncodeToString(body) + `","payloadType":"` + attest.PayloadType +
		`","signatures":[{"sig":"` + base64.StdEncoding.EncodeToString(forged) + `"}]}`
	if _, err := attest.Check([]byte(env), []ed25519.PublicKey{weak}, recordID, keyID, rec); format.CodeOf(err) != format.AttestInvalid {
		t.Fatalf("forgery under a weak pinned key: %v", err)
	}
}

func TestSignRefusesBadStatements(t *testing.T) {
	bad := []attest.Statement{
		{Type: "observer", RecordID: recordID, KeyID: keyID, ObservedAt: "2026-03-01T10:05:00Z"},
		{Type: attest.Witness, RecordID: "abc", KeyID: keyID, ObservedAt: "2026-03-01T10:05:00Z"},
		{Type: attest.Recorder, RecordID: recordID, KeyID: keyID, ObservedAt: "2026-03-01T10:05:00Z"},
		{Type: attest.Witness, RecordID: recordID, KeyID: keyID, ObservedAt: "yesterday"},
	}
	for _, s := range bad {
		if _, err := attest.Sign(s, witness); err == nil {
			t.Errorf("Sign accepted %+v", s)
		}
	}
}

func FuzzOpen(f *testing.F) {
	env, _ := attest.Sign(witnessStatement(), witness)
	f.Add(env)
	r := recorderStatement(*rec)
	env2, _ := attest.Sign(r, builder)
	f.Add(env2)
	f.Add([]byte(`{"payload":"","payloadType":"","signatures":[{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := attest.Check(b, pinned, recordID, keyID, rec)
		if err == nil && v.AttestorKeyID == "" {
			t.Fatal("accepted without an attestor")
		}
	})
}
