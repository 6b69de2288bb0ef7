package signed

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/edsign"
	"github.com/logbook-project/logbook/internal/format"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Session is the session header of a record (spec §4, §8).
type Session struct {
	ID, Agent, Goal, Cwd string
	StartedAt, EndedAt   string           // RFC 3339 UTC
	Recorder             *format.Recorder // nil: the record has no session.recorder
}

func (s Session) value() strictjson.Value {
	v := strictjson.Obj(
		strictjson.Member{Key: "agent", Value: strictjson.Str(s.Agent)},
		strictjson.Member{Key: "cwd", Value: strictjson.Str(s.Cwd)},
		strictjson.Member{Key: "endedAt", Value: strictjson.Str(s.EndedAt)},
		strictjson.Member{Key: "goal", Value: strictjson.Str(s.Goal)},
		strictjson.Member{Key: "id", Value: strictjson.Str(s.ID)},
	)
	if r := s.Recorder; r != nil {
		v.Members = append(v.Members, strictjson.Member{Key: "recorder", Value: strictjson.Obj(
			strictjson.Member{Key: "name", Value: strictjson.Str(r.Name)},
			strictjson.Member{Key: "sha256", Value: strictjson.Str(r.SHA256)},
			strictjson.Member{Key: "version", Value: strictjson.Str(r.Version)},
		)})
	}
	v.Members = append(v.Members, strictjson.Member{Key: "startedAt", Value: strictjson.Str(s.StartedAt)})
	return v
}

// Extras are the optional parts of a record that Assemble adds.
type Extras struct {
	// Certificates become signerIdentity.certificates (DER X.509, leaf
	// first), inside the signed payload (spec §6). The caller checks that
	// the leaf's key is the signing key.
	Certificates [][]byte
	// Timestamp, when not nil, is called with the 64 signature bytes once
	// they exist and returns a DER RFC 3161 TimeStampToken over their
	// SHA-256, stored as signature.rfc3161. The token is outside the signed
	// payload (spec §6): it can only be asked for after signing.
	Timestamp func(signature []byte) ([]byte, error)
}

// Assemble signs steps and returns the record's bytes: its RFC 8785
// canonical form followed by a newline. stepsJSON is the canonical steps
// array (as journal.ReadAll gives it), count its length and tip the last
// step's hash ("" for none): the steps must already form a valid chain. The
// same session, steps and key give the same bytes (Ed25519 is
// deterministic, RFC 8032).
func Assemble(sess Session, stepsJSON []byte, count int, tip string, priv ed25519.PrivateKey) ([]byte, error) {
	return AssembleWith(sess, stepsJSON, count, tip, priv, Extras{})
}

// AssembleWith is Assemble with a signer identity and a timestamp (see
// Extras). An error from Extras.Timestamp is returned as is.
func AssembleWith(sess Session, stepsJSON []byte, count int, tip string, priv ed25519.PrivateKey, x Extras) ([]byte, error) {
	a, err := prepare(sess, count, tip, priv, x)
	if err != nil {
		return nil, err
	}
	signed, err := SignedBytes(a.parts(stepsJSON))
	if err != nil {
		return nil, err
	}
	// edsign, not ed25519.Sign: the same bytes without crypto/ed25519's
	// per-process base point tables (most of a one-shot seal's signing).
	// It refuses a key whose public half does not match its seed (a
	// damaged key file read by hand would sign what no verifier accepts)
	// and checks the signature it made, for every caller, before anything
	// is written.
	sig, err := edsign.Sign(priv, signed)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	signed = nil // as large as the record: not needed to build it (issue 22)
	prefix, suffix, err := a.finish(sig)
	if err != nil {
		return nil, err
	}
	out := bigbuf.Alloc(len(prefix) + len(stepsJSON) + len(suffix) + 1)
	out = append(append(append(out, prefix...), stepsJSON...), suffix...)
	return append(out, '\n'), nil
}

// assembly is what a record is built from, but its steps and signature.
type assembly struct {
	pubHex        string
	sess, count   strictjson.Value
	tip, identity strictjson.Value
	hasIdentity   bool
	timestamp     func([]byte) ([]byte, error)
}

func prepare(sess Session, count int, tip string, priv ed25519.PrivateKey, x Extras) (*assembly, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("record: signing key is not an Ed25519 private key")
	}
	if count == 0 {
		tip = chain.EmptyTip
	}
	a := &assembly{
		pubHex:    hex.EncodeToString(SPKI(priv.Public().(ed25519.PublicKey))),
		sess:      sess.value(),
		count:     strictjson.Int(int64(count)),
		tip:       strictjson.Str(tip),
		timestamp: x.Timestamp,
	}
	if len(x.Certificates) > 0 {
		certs := make([]string, len(x.Certificates))
		for i, der := range x.Certificates {
			certs[i] = hex.EncodeToString(der)
		}
		a.identity = strictjson.Obj(strictjson.Member{Key: "certificates", Value: strictjson.StrArr(certs)})
		a.hasIdentity = true
	}
	return a, nil
}

// parts are the signed members (spec §6), with the steps already canonical.
func (a *assembly) parts(stepsJSON []byte) Parts {
	p := Parts{Session: &a.sess, StepsJSON: stepsJSON, StepCount: &a.count, ChainTip: &a.tip, PublicKey: a.pubHex}
	if a.hasIdentity {
		p.SignerIdentity = &a.identity
	}
	return p
}

// finish asks for the timestamp, if any, and returns the record's bytes
// before and after its steps array (the newline that ends the file not
// included).
func (a *assembly) finish(sig []byte) (prefix, suffix []byte, err error) {
	sigObj := strictjson.Obj(
		strictjson.Member{Key: "alg", Value: strictjson.Str("Ed25519")},
		strictjson.Member{Key: "envelope", Value: strictjson.Str(format.Domain)},
		strictjson.Member{Key: "publicKey", Value: strictjson.Str(a.pubHex)},
	)
	if a.timestamp != nil {
		token, err := a.timestamp(sig)
		if err != nil {
			return nil, nil, err
		}
		sigObj.Members = append(sigObj.Members, strictjson.Member{Key: "rfc3161", Value: strictjson.Str(hex.EncodeToString(token))})
	}
	sigObj.Members = append(sigObj.Members, strictjson.Member{Key: "value", Value: strictjson.Str(hex.EncodeToString(sig))})
	rec := strictjson.Obj(
		strictjson.Member{Key: "chainTip", Value: a.tip},
		strictjson.Member{Key: "session", Value: a.sess},
		strictjson.Member{Key: "signature", Value: sigObj},
	)
	if a.hasIdentity {
		rec.Members = append(rec.Members, strictjson.Member{Key: "signerIdentity", Value: a.identity})
	}
	rec.Members = append(rec.Members,
		strictjson.Member{Key: "stepCount", Value: a.count},
		strictjson.Member{Key: "steps", Value: strictjson.Str(stepsPlaceholder)},
		strictjson.Member{Key: "version", Value: strictjson.Str(format.Version)},
	)
	return splice(&rec)
}
