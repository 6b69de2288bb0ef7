package gate

import (
	"github.com/logbook-project/logbook/internal/chain"
	"github.com/logbook-project/logbook/internal/hookevent"
	"github.com/logbook-project/logbook/internal/orgpolicy"
	"github.com/logbook-project/logbook/internal/recorder"
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
	o.Gate = func(ev hookevent.Event) *chain.Step {
		if !orgpolicy.Gated(ev.Name) {
			return nil
		}
		v := g.Check(payload, ev)
		*out = &v
		return &v.Step
	}
	if g.Signed != nil {
		return g.Signed.RedactPayload(payload)
	}
	return payload
}
