// Package tombstone is the signed statement that stands for a record
// deleted under a retention policy (logbook/tombstone@0, docs/index.md):
// which session, which record (its SHA-256, chain tip and step count, so
// the checkpoints and log entries that stay still name what was there),
// who deleted it, when and why, signed by the server's key. The verifier
// names a tombstone as such (TOMBSTONED), never as a damaged record.
package tombstone

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/logbook-project/logbook/internal/edkey"
	"github.com/logbook-project/logbook/internal/edsign"
	"github.com/logbook-project/logbook/internal/edverify"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Format is the tombstone's "v".
const Format = "logbook/tombstone@0"

// Tombstone is the statement. Every member is a string but stepCount.
type Tombstone struct {
	Session      string // session.id of the deleted record
	Tenant       string
	Developer    string
	RecordSHA256 string // SHA-256 of the deleted record's bytes
	ChainTip     string // its chainTip
	StepCount    int64  // its stepCount
	StartedAt    string // its session.startedAt
	EndedAt      string // its session.endedAt
	DeletedAt    string // spec §4 instant
	DeletedBy    string // who ran the deletion (the admin, or "retention policy: keep N days")
	Reason       string
	KeyID        string // edkey.KeyID of the signing key
	PublicKey    string // the signing key, 64 hex digits
	Signature    string // 128 hex digits over Signed()
}

// members are the tombstone's members but the signature (jcs puts them
// in RFC 8785 order).
func (t *Tombstone) members() []strictjson.Member {
	s := strictjson.Str
	return []strictjson.Member{
		{Key: "chainTip", Value: s(t.ChainTip)},
		{Key: "deletedAt", Value: s(t.DeletedAt)},
		{Key: "deletedBy", Value: s(t.DeletedBy)},
		{Key: "developer", Value: s(t.Developer)},
		{Key: "endedAt", Value: s(t.EndedAt)},
		{Key: "keyId", Value: s(t.KeyID)},
		{Key: "publicKey", Value: s(t.PublicKey)},
		{Key: "reason", Value: s(t.Reason)},
		{Key: "recordSha256", Value: s(t.RecordSHA256)},
		{Key: "session", Value: s(t.Session)},
		{Key: "startedAt", Value: s(t.StartedAt)},
		{Key: "stepCount", Value: strictjson.Int(t.StepCount)},
		{Key: "tenant", Value: s(t.Tenant)},
		{Key: "v", Value: s(Format)},
	}
}

// Signed is what the signature covers: the tombstone without its
// signature member, in RFC 8785 form.
func (t *Tombstone) Signed() ([]byte, error) {
	v := strictjson.Obj(t.members()...)
	return jcs.Append(nil, &v)
}

// Sign fills KeyID, PublicKey and Signature with key's, and returns the
// tombstone's bytes (RFC 8785, one line, a newline).
func Sign(t Tombstone, key ed25519.PrivateKey) ([]byte, error) {
	pub := key.Public().(ed25519.PublicKey)
	t.KeyID, t.PublicKey = edkey.KeyID(edkey.SPKI(pub)), hex.EncodeToString(pub)
	msg, err := t.Signed()
	if err != nil {
		return nil, err
	}
	sig, err := edsign.Sign(key, msg)
	if err != nil {
		return nil, err
	}
	v := strictjson.Obj(append(t.members(), strictjson.Member{Key: "signature", Value: strictjson.Str(hex.EncodeToString(sig))})...)
	b, err := jcs.Append(nil, &v)
	return append(b, '\n'), err
}

// Is reports whether a parsed file is a tombstone (its "v" says so).
func Is(v *strictjson.Value) bool {
	f, ok := v.GetString("v")
	return ok && f == Format
}

// ErrMalformed is returned for a tombstone that is not its format.
var ErrMalformed = errors.New("malformed tombstone")

// Read reads a parsed tombstone strictly: every member, nothing else.
func Read(v *strictjson.Value) (Tombstone, error) {
	var t Tombstone
	if v.Kind != strictjson.Object || len(v.Members) != 15 {
		return t, fmt.Errorf("%w: want the 15 members of %s", ErrMalformed, Format)
	}
	str := map[string]*string{"chainTip": &t.ChainTip, "deletedAt": &t.DeletedAt, "deletedBy": &t.DeletedBy, "developer": &t.Developer,
		"endedAt": &t.EndedAt, "keyId": &t.KeyID, "publicKey": &t.PublicKey, "reason": &t.Reason, "recordSha256": &t.RecordSHA256,
		"session": &t.Session, "signature": &t.Signature, "startedAt": &t.StartedAt, "tenant": &t.Tenant}
	for _, m := range v.Members {
		switch {
		case m.Key == "v":
		case m.Key == "stepCount":
			n, err := strconv.ParseInt(m.Value.Str, 10, 64)
			if m.Value.Kind != strictjson.Number || err != nil || n < 0 {
				return t, fmt.Errorf("%w: stepCount is not a count", ErrMalformed)
			}
			t.StepCount = n
		case str[m.Key] != nil && m.Value.Kind == strictjson.String:
			*str[m.Key] = m.Value.Str
		default:
			return t, fmt.Errorf("%w: member %q", ErrMalformed, m.Key)
		}
	}
	return t, nil
}

// Check verifies the signature under the key the tombstone names and
// reports that key; pinned says whether it is one of keys (nil: none
// pinned).
func Check(t Tombstone, keys []ed25519.PublicKey) (sound, pinned bool) {
	pub, err := hex.DecodeString(t.PublicKey)
	sig, serr := hex.DecodeString(t.Signature)
	msg, merr := t.Signed()
	if err != nil || serr != nil || merr != nil || len(pub) != ed25519.PublicKeySize || edkey.KeyID(edkey.SPKI(pub)) != t.KeyID {
		return false, false
	}
	if !edverify.Verify(pub, msg, sig) {
		return false, false
	}
	for _, k := range keys {
		if string(k) == string(pub) {
			return true, true
		}
	}
	return true, false
}

// Describe is the verifier's sentence for a tombstone: what was deleted,
// by whom, when and why, and whether its signature holds under a pinned
// key.
func Describe(v *strictjson.Value, keys []ed25519.PublicKey) string {
	t, err := Read(v)
	if err != nil {
		return "a tombstone (" + Format + ") that cannot be read: " + err.Error()
	}
	sound, pinned := Check(t, keys)
	sig := "its signature does not verify: not a server's tombstone"
	switch {
	case sound && pinned:
		sig = "signed by the pinned key " + t.KeyID
	case sound:
		sig = "signed by key " + t.KeyID + ", which is not one of the pinned keys"
	}
	return fmt.Sprintf("session %s's record (%d steps, chain tip %s, sha256 %s) was deleted at %s by %s: %s; this tombstone stands for it, %s",
		t.Session, t.StepCount, t.ChainTip, t.RecordSHA256, t.DeletedAt, t.DeletedBy, t.Reason, sig)
}
