package record

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/jcs"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Session is the session header of a record (spec §4, §8).
type Session struct {
	ID, Agent, Goal, Cwd string
	StartedAt, EndedAt   string // RFC 3339 UTC
}

func (s Session) value() strictjson.Value {
	return strictjson.Obj(
		strictjson.Member{Key: "agent", Value: strictjson.Str(s.Agent)},
		strictjson.Member{Key: "cwd", Value: strictjson.Str(s.Cwd)},
		strictjson.Member{Key: "endedAt", Value: strictjson.Str(s.EndedAt)},
		strictjson.Member{Key: "goal", Value: strictjson.Str(s.Goal)},
		strictjson.Member{Key: "id", Value: strictjson.Str(s.ID)},
		strictjson.Member{Key: "startedAt", Value: strictjson.Str(s.StartedAt)},
	)
}

// Assemble signs linked steps (as read back from an in-progress file) under
// priv and returns the record's bytes: its RFC 8785 canonical form followed
// by a newline. The same session, steps and key give the same bytes (Ed25519
// is deterministic, RFC 8032). steps must already form a valid chain.
func Assemble(sess Session, steps []strictjson.Value, priv ed25519.PrivateKey) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("record: signing key is not an Ed25519 private key")
	}
	spki := SPKI(priv.Public().(ed25519.PublicKey))
	pubHex := hex.EncodeToString(spki)
	tip := chain.EmptyTip
	if n := len(steps); n > 0 {
		tip, _ = steps[n-1].GetString("hash")
	}
	sv := sess.value()
	stepsV := strictjson.Arr(steps...)
	countV := strictjson.Int(int64(len(steps)))
	tipV := strictjson.Str(tip)
	signed, err := SignedBytes(Parts{Session: &sv, Steps: &stepsV, StepCount: &countV, ChainTip: &tipV, PublicKey: pubHex})
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(priv, signed)
	rec := strictjson.Obj(
		strictjson.Member{Key: "chainTip", Value: tipV},
		strictjson.Member{Key: "session", Value: sv},
		strictjson.Member{Key: "signature", Value: strictjson.Obj(
			strictjson.Member{Key: "alg", Value: strictjson.Str("Ed25519")},
			strictjson.Member{Key: "envelope", Value: strictjson.Str(Domain)},
			strictjson.Member{Key: "publicKey", Value: strictjson.Str(pubHex)},
			strictjson.Member{Key: "value", Value: strictjson.Str(hex.EncodeToString(sig))},
		)},
		strictjson.Member{Key: "stepCount", Value: countV},
		strictjson.Member{Key: "steps", Value: stepsV},
		strictjson.Member{Key: "version", Value: strictjson.Str(Version)},
	)
	out, err := jcs.Append(make([]byte, 0, len(signed)+512), &rec)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
