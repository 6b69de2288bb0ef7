// Package signed builds a record's signed bytes and assembles a signed
// record (spec §6). It is package record's writing half, kept apart so
// that a program that only seals (logbook-wrap --out) does not link the
// verifier's schema validator, whose start-up costs more than the seal.
package signed

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Constants of the format (spec §4, §6).
const (
	idPrefix = "logbook/id/v1"
	// SPKIPrefix is the DER header of an Ed25519 SubjectPublicKeyInfo; the
	// 32 key bytes follow it.
	SPKIPrefix = "302a300506032b6570032100"
)

// Parts are the signed members of a record, as values (spec §6).
type Parts struct {
	Session        *strictjson.Value
	Steps          *strictjson.Value // or, already canonical:
	StepsJSON      []byte            // the canonical steps array (used when set)
	StepCount      *strictjson.Value
	ChainTip       *strictjson.Value
	PublicKey      string            // signature.publicKey, 88 hex chars
	SignerIdentity *strictjson.Value // nil when absent
	Signature      *strictjson.Value // the signature object (verification only)
}

// SignedBytes returns the canonical envelope that the signature covers:
// canonicalize({"v":1,"domain":…,"payload":{…},"timestamp":session.endedAt})
// (spec §6). It fails only on a value with no canonical form, which a record
// that passed the shape check cannot hold.
func SignedBytes(p Parts) ([]byte, error) {
	prefix, suffix, err := Envelope(p)
	if err != nil {
		return nil, err
	}
	out := bigbuf.Alloc(len(prefix) + len(suffix) + len(p.StepsJSON) + 64)
	out = append(out, prefix...)
	if p.StepsJSON != nil {
		out = append(out, p.StepsJSON...)
	} else if out, err = jcs.Append(out, stepsValue(p.Steps)); err != nil {
		return nil, err
	}
	return append(out, suffix...), nil
}

// Envelope returns the signed bytes around the canonical steps array:
// signedBytes = prefix + canonical(steps) + suffix. The steps may be
// hundreds of MB; everything else is small, so callers write the steps
// straight into place.
func Envelope(p Parts) (prefix, suffix []byte, err error) {
	payload := strictjson.Obj(
		strictjson.Member{Key: "chainTip", Value: *p.ChainTip},
		strictjson.Member{Key: "publicKey", Value: strictjson.Str(p.PublicKey)},
		strictjson.Member{Key: "session", Value: *p.Session},
	)
	if p.SignerIdentity != nil {
		payload.Members = append(payload.Members, strictjson.Member{Key: "signerIdentity", Value: *p.SignerIdentity})
	}
	payload.Members = append(payload.Members,
		strictjson.Member{Key: "stepCount", Value: *p.StepCount},
		strictjson.Member{Key: "steps", Value: strictjson.Str(stepsPlaceholder)},
		strictjson.Member{Key: "version", Value: strictjson.Str(format.Version)},
	)
	endedAt := p.Session.Get("endedAt")
	if endedAt == nil {
		v := strictjson.NullValue()
		endedAt = &v
	}
	env := strictjson.Obj(
		strictjson.Member{Key: "domain", Value: strictjson.Str(format.Domain)},
		strictjson.Member{Key: "payload", Value: payload},
		strictjson.Member{Key: "timestamp", Value: *endedAt},
		strictjson.Member{Key: "v", Value: strictjson.Int(1)},
	)
	return splice(&env)
}

// splice writes v, whose "steps" member holds stepsPlaceholder, in
// canonical form and returns the bytes before and after that placeholder.
func splice(v *strictjson.Value) (prefix, suffix []byte, err error) {
	head, err := jcs.Append(make([]byte, 0, 1024), v)
	if err != nil {
		return nil, nil, err
	}
	marker := []byte(`"steps":"` + stepsPlaceholder + `"`)
	at := bytes.LastIndex(head, marker) + len(`"steps":`)
	return head[:at], head[at+len(stepsPlaceholder)+2:], nil
}

// stepsPlaceholder marks where the steps go, in the signed envelope and in
// the record. A session field may hold the same text, but the session and
// signerIdentity sort before "steps", and only "version", "timestamp" (an
// instant) and "v" follow it: the last occurrence is always the placeholder.
const stepsPlaceholder = "logbook:steps-placeholder"

func stepsValue(v *strictjson.Value) *strictjson.Value {
	if v == nil {
		empty := strictjson.Arr()
		return &empty
	}
	return v
}

// SPKI returns the 44-byte DER SubjectPublicKeyInfo of an Ed25519 key.
func SPKI(pub ed25519.PublicKey) []byte {
	prefix, _ := hex.DecodeString(SPKIPrefix)
	return append(prefix, pub...)
}

// RecordID is sha256("logbook/id/v1" || signedBytes), lowercase hex (spec §6).
func RecordID(signedBytes []byte) string {
	h := sha256.New()
	h.Write([]byte(idPrefix))
	h.Write(signedBytes)
	return hex.EncodeToString(h.Sum(nil))
}

// KeyID is sha256 of the 44 SPKI bytes, lowercase hex (spec §6).
func KeyID(spki []byte) string {
	sum := sha256.Sum256(spki)
	return hex.EncodeToString(sum[:])
}
