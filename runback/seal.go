package runback

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"

	"github.com/logbook-project/logbook/internal/cassettecheck"
	js "github.com/logbook-project/logbook/internal/cassettecheck/jsvalue"
	"github.com/logbook-project/logbook/internal/cassettecheck/oracle"
)

// Schema is the $schema a sealed cassette declares.
const Schema = "runback.audit/v2"

// Signer signs "content_digest:cassette_digest".
type Signer interface {
	sign(payload []byte) (js.Value, error)
}

type edSigner struct{ priv ed25519.PrivateKey }

// Ed25519Signer signs with priv; the cassette carries the public key (SPKI
// PEM), so it verifies offline, and `logbook-verify --pubkey` pins it.
func Ed25519Signer(priv ed25519.PrivateKey) Signer { return edSigner{priv} }

func (s edSigner) sign(payload []byte) (js.Value, error) {
	der, err := x509.MarshalPKIXPublicKey(s.priv.Public())
	if err != nil {
		return js.Value{}, err
	}
	pub := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	return js.Obj(js.Member{Key: "alg", Value: js.Str("Ed25519")},
		js.Member{Key: "value", Value: js.Str(hex.EncodeToString(ed25519.Sign(s.priv, payload)))},
		js.Member{Key: "pubkey", Value: js.Str(string(pub))}), nil
}

type hmacSigner struct{ key []byte }

// HMACSigner signs with HMAC-SHA256 under a shared key. It proves custody
// of the key, not identity: whoever verifies holds the key too and could
// have made the cassette.
func HMACSigner(key []byte) Signer { return hmacSigner{key} }

func (s hmacSigner) sign(payload []byte) (js.Value, error) {
	if len(s.key) == 0 {
		return js.Value{}, errors.New("runback: empty HMAC key")
	}
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return js.Obj(js.Member{Key: "alg", Value: js.Str("HMAC-SHA256")},
		js.Member{Key: "value", Value: js.Str(hex.EncodeToString(m.Sum(nil)))}), nil
}

// Seal returns the cassette: the events with their chain hashes, the run
// summary taken from the run-end event (so runback's consistency check
// holds), and the manifest with both digests, signed by s (nil: unsigned).
// Recording may go on afterwards; a later Seal covers the later events.
func (r *Recorder) Seal(s Signer) ([]byte, error) {
	r.mu.Lock()
	events := make([]js.Value, len(r.events))
	copy(events, r.events)
	r.mu.Unlock()

	hashes, digest := oracle.Chain(events)
	cassette, entries, err := oracle.CassetteDigest(events)
	if err != nil {
		return nil, err
	}
	hashed := js.Arr()
	hashed.Items = make([]js.Value, len(events))
	for i := range events {
		e := events[i]
		e.Members = append(e.Members[:len(e.Members):len(e.Members)], js.Member{Key: "_hash", Value: js.Str(hashes[i])})
		hashed.Items[i] = e
	}
	sig := js.NullValue()
	if s != nil {
		if sig, err = s.sign([]byte(digest + ":" + cassette)); err != nil {
			return nil, err
		}
	}
	manifest := js.Obj(
		js.Member{Key: "run_id", Value: js.Str(r.cfg.RunID)},
		js.Member{Key: "generated_at", Value: r.stamp()},
		js.Member{Key: "event_count", Value: js.Num(float64(len(events)))},
		js.Member{Key: "algorithm", Value: js.Str("sha256-chain")},
		js.Member{Key: "content_digest", Value: js.Str(digest)},
		js.Member{Key: "replay", Value: js.Obj(
			js.Member{Key: "cassette_digest", Value: js.Str(cassette)},
			js.Member{Key: "entry_count", Value: js.Num(float64(entries))},
			js.Member{Key: "algorithm", Value: js.Str("oracle-chain/sha256")},
			js.Member{Key: "note", Value: js.Str("Every model response, tool output and environment read, hash-chained in seq order. Re-run the agent against these events and the digest must reproduce.")},
		)},
		js.Member{Key: "signed", Value: js.Value{Kind: js.Bool, Bool: s != nil}},
		js.Member{Key: "signature", Value: sig},
		js.Member{Key: "verify", Value: js.Str("logbook-verify [--pubkey KEY.pub] CASSETTE: recomputes the event chain (content_digest) and the oracle stream (replay.cassette_digest); the signature covers content_digest:cassette_digest.")},
		js.Member{Key: "spec_url", Value: js.Str("https://runback.dev/spec")},
	)
	rec := js.Obj(
		js.Member{Key: "$schema", Value: js.Str(Schema)},
		js.Member{Key: "manifest", Value: manifest},
		js.Member{Key: "run", Value: r.summary(events)},
		js.Member{Key: "events", Value: hashed},
	)
	return append(js.AppendJSON(nil, &rec, "  "), '\n'), nil
}

// summary is the run object, copied from the run-start and run-end events.
func (r *Recorder) summary(events []js.Value) js.Value {
	run := js.Obj(js.Member{Key: "run_id", Value: js.Str(r.cfg.RunID)}, js.Member{Key: "name", Value: js.Str(r.cfg.Name)})
	var start, end *js.Value
	steps := 0
	for i := range events {
		e := &events[i]
		switch t := js.Prop(e, "type").Str; {
		case t == "run" && js.Prop(e, "phase").Str == "start" && start == nil:
			start = e
		case t == "run" && js.Prop(e, "phase").Str == "end" && end == nil:
			end = e
		case t == "llm" || t == "tool":
			steps++
		}
	}
	status := js.Str("running")
	if end != nil {
		status = *js.Prop(end, "status")
	}
	run.Set("status", status)
	if start != nil {
		run.Set("input", *js.Prop(start, "input"))
		run.Set("started_at", *js.Prop(start, "ts_start"))
	}
	if end != nil {
		run.Set("output", *js.Prop(end, "output"))
		run.Set("error", *js.Prop(end, "error"))
		run.Set("ended_at", *js.Prop(end, "ts_start"))
	}
	run.Set("step_count", js.Num(float64(steps)))
	return run
}

// VerifyOptions are the verifier's options: pinned and revoked keys, HMAC
// keys, strict findings.
type VerifyOptions = cassettecheck.Options

// Result is the verifier's result, runback's shape plus logbook's findings.
type Result = cassettecheck.Result

// Verify checks a cassette exactly as runback's verifier does (six checks,
// verdict valid, unverified or invalid) and names what it is lenient
// about. A nil Pinned pins runback's production key, as its CLI does.
func Verify(cassette []byte, opt VerifyOptions) (Result, error) {
	return cassettecheck.Verify(cassette, opt)
}
