package gate

import (
	"bytes"

	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/recorder"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Wire puts the gate into a recorder's options for one payload: it
// returns the payload to record (the policy's redaction pointers applied)
// and sets o.Gate, which decides a gated event on the payload as the
// harness sent it. After recorder.Record, *out holds the verdict, or
// nil when the event was not gated (or not read). A nil gate changes
// nothing.
func (g *Gate) Wire(payload []byte, o *recorder.Options, out **Verdict) []byte {
	if g == nil {
		return payload
	}
	rec := payload
	if g.Signed != nil {
		rec = g.Signed.RedactPayload(payload)
	}
	redacted := g.Signed != nil && g.Signed.RedactsInput() && !bytes.Equal(rec, payload)
	o.Gate = func(ev hookevent.Event) *chain.Step {
		if !kinds.Gated(ev.Name) {
			return nil
		}
		v := g.Check(payload, ev)
		if redacted {
			// The policy's pointers changed what is recorded: the
			// call's post-event, recorded without them, digests another
			// input, and the verifier knows why (GATE_INPUT_MISMATCH
			// then compares the pre-event only).
			v.Step.Data.Members = append(v.Step.Data.Members, strictjson.Member{Key: orgpolicy.RedactedField, Value: strictjson.Bool(true)})
		}
		*out = &v
		return &v.Step
	}
	return rec
}
