package review

import (
	"github.com/logbook-project/logbook/internal/record"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Collector gathers a record's session and steps as the verifier reads
// them (record.Options.EachStep and Top, through verdict.Inputs), so a
// review needs no second parse of the record.
type Collector struct {
	b       *streamBuild
	ses     Session
	claimed int64 // stepCount, as the record states it
	top     bool
}

// Expect tells c the record's size, in bytes, before the verifier hands
// over its steps: room is made for the calls a record of that size
// holds, about one per 1,400 bytes (reviewtest.Big's; a record of fewer
// calls wastes 24 bytes of map per 1,400 of record, under 2%).
func (c *Collector) Expect(recordBytes int) {
	if c.b == nil {
		c.b = newStreamBuild(recordBytes / bytesPerCall)
	}
}

// bytesPerCall is a long Claude Code session's record size over its calls.
const bytesPerCall = 1400

// Step is record.Options.EachStep.
func (c *Collector) Step(i int, v *strictjson.Value) {
	if c.b == nil {
		c.b = newStreamBuild(0)
	}
	if i == c.b.n { // a step left out (refused) ends the collection
		c.b.add(v)
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
// stopped it), or a step's seq was not its place, the record is read
// again as FromRecord reads it.
func FromCollected(c *Collector, data []byte, res record.Result, pinnedAny bool) (*Review, error) {
	if c.b == nil {
		c.b = newStreamBuild(0)
	}
	// A refused record (no record id) is reviewed from every step held:
	// its gaps are counted then, by the review, not by the verifier.
	if !c.top || int64(c.b.n) != c.claimed || !c.b.ok() || res.RecordID == "" {
		c.b = nil
		return FromRecord(data, res, pinnedAny)
	}
	r := &Review{Verdict: verdictOf(res, pinnedAny), Turns: []Turn{}, Session: c.ses}
	r.Turns, r.Summary = c.b.finish(res.Gaps) // counted by the verifier, over the same steps
	c.b = nil
	return r, nil
}
