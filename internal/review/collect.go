package review

import (
	"github.com/logbook-project/logbook/internal/gaps"
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Collector gathers a record's session and steps as the verifier reads
// them (record.Options.EachStep and Top, through verdict.Inputs), so a
// review needs no second parse of the record.
type Collector struct {
	steps   []Step
	ses     Session
	claimed int64 // stepCount, as the record states it
	top     bool
}

// Step is record.Options.EachStep.
func (c *Collector) Step(i int, v *strictjson.Value) {
	if i == len(c.steps) { // a step left out (refused) ends the collection
		c.steps = append(c.steps, reader{share: true}.step(v))
	}
}

// Top is record.Options.Top.
func (c *Collector) Top(rec *strictjson.Value) {
	c.top = true
	c.ses = sessionOf(rec)
	if n := intp(rec.Get("stepCount")); n != nil {
		c.claimed = *n
	}
}

// FromCollected reviews a record whose steps c gathered while res was
// reached; when the verifier did not hand over every step (a refusal
// stopped it), the record is read again as FromRecord reads it.
func FromCollected(c *Collector, data []byte, res record.Result, pinnedAny bool) (*Review, error) {
	if !c.top || int64(len(c.steps)) != c.claimed {
		return FromRecord(data, res, pinnedAny)
	}
	r := &Review{Verdict: verdictOf(res, pinnedAny), Turns: []Turn{}, Session: c.ses}
	var counted *gaps.Counts
	if res.RecordID != "" { // counted by the verifier, over the same steps
		counted = &res.Gaps
	}
	r.Turns, r.Summary = build(c.steps, counted)
	c.steps = nil
	return r, nil
}
