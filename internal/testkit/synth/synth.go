// Package synth makes the hook sessions the project's own tests and the
// demo replay when the real ones (../shared, see internal/testkit/corpora) are not
// there. Every payload is written here, in the shape each harness's hook
// documentation gives (field names, value types, key order, event names),
// with values invented for a small made-up project: nothing is copied from
// a real session.
//
// A Session is deterministic: the same name gives the same bytes, so a
// record sealed from it with a fixed key and clock is the same every time.
package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
)

// Session is one replayable sequence of hook payloads.
type Session struct {
	Name    string
	Harness string   // as record-step --harness spells it
	ID      string   // the session id the payloads carry
	Events  [][]byte // compact JSON, one payload each, in order
	Times   []string // the instant of each event, for LOGBOOK_NOW
	// Config is, for payloads that carry no event name (Copilot CLI's
	// camelCase dialect), the configured hook event each one arrives on;
	// nil when every payload names its event.
	Config []string
}

// TimeLayout is the form of Times: RFC 3339, UTC, three fractional digits.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Names lists the Claude Code sessions Claude returns.
var Names = []string{"short", "tool_heavy", "subagent", "long"}

// Harnesses lists the harnesses Dialect renders a session for.
// It is the recorder's one list (kinds.Harnesses): a harness added there
// needs a session here (TestDialectsEverywhere).
var Harnesses = kinds.Harnesses

// member is one key of an ordered JSON object.
type member struct {
	k string
	v any
}

// obj is a JSON object whose keys keep the order they are written in, as
// the harnesses (JavaScript, Rust, Python) write theirs.
type obj []member

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.k)
		if err != nil {
			return nil, err
		}
		v, err := marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping and without the newline.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func mustJSON(v any) []byte {
	b, err := marshal(v)
	if err != nil {
		panic(fmt.Sprintf("synth: %v", err)) // a bug in this package's own data
	}
	return b
}

// jsonText is v written as JSON text inside a string, as Cursor and
// Copilot CLI send tool arguments and results.
func jsonText(v any) string { return string(mustJSON(v)) }

// clock hands out increasing instants.
type clock struct {
	t    time.Time
	seed uint32
}

func newClock(start string, seed uint32) *clock {
	t, err := time.Parse(time.RFC3339, start)
	if err != nil {
		panic(err)
	}
	return &clock{t: t, seed: seed | 1}
}

// next advances by a pseudo-random step between min and max milliseconds.
func (c *clock) next(min, max int) time.Time {
	c.seed ^= c.seed << 13
	c.seed ^= c.seed >> 17
	c.seed ^= c.seed << 5
	c.t = c.t.Add(time.Duration(min+int(c.seed%uint32(max-min+1))) * time.Millisecond)
	return c.t
}

func (c *clock) rand(n int) int {
	c.next(0, 0)
	return int(c.seed % uint32(n))
}

// builder collects a session's payloads.
type builder struct {
	s   Session
	clk *clock
}

func (b *builder) add(at time.Time, payload any) {
	b.s.Events = append(b.s.Events, mustJSON(payload))
	b.s.Times = append(b.s.Times, at.UTC().Format(TimeLayout))
}
