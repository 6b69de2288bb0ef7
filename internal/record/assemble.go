package record

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"

	"github.com/logbook-project/logbook/internal/bigbuf"
	"github.com/logbook-project/logbook/internal/chain"
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

// Assemble signs steps and returns the record's bytes: its RFC 8785
// canonical form followed by a newline. stepsJSON is the canonical steps
// array (as journal.ReadAll gives it), count its length and tip the last
// step's hash ("" for none): the steps must already form a valid chain. The
// same session, steps and key give the same bytes (Ed25519 is
// deterministic, RFC 8032).
func Assemble(sess Session, stepsJSON []byte, count int, tip string, priv ed25519.PrivateKey) ([]byte, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, errors.New("record: signing key is not an Ed25519 private key")
	}
	pubHex := hex.EncodeToString(SPKI(priv.Public().(ed25519.PublicKey)))
	if count == 0 {
		tip = chain.EmptyTip
	}
	sv := sess.value()
	countV := strictjson.Int(int64(count))
	tipV := strictjson.Str(tip)
	signed, err := SignedBytes(Parts{Session: &sv, StepsJSON: stepsJSON, StepCount: &countV, ChainTip: &tipV, PublicKey: pubHex})
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
		strictjson.Member{Key: "steps", Value: strictjson.Str(stepsPlaceholder)},
		strictjson.Member{Key: "version", Value: strictjson.Str(Version)},
	)
	prefix, suffix, err := splice(&rec)
	if err != nil {
		return nil, err
	}
	out := bigbuf.Alloc(len(prefix) + len(stepsJSON) + len(suffix) + 1)
	out = append(append(append(out, prefix...), stepsJSON...), suffix...)
	return append(out, '\n'), nil
}
