package hookevent

import (
	"github.com/logbook-project/logbook/internal/hookevent/kinds"
	"github.com/logbook-project/logbook/internal/redact"
	"github.com/logbook-project/logbook/internal/strictjson"
)

// Hint is what a hook's command line says about its payload: the harness
// whose configuration ran the hook (record-step --harness NAME) and, for a
// dialect that carries no event name (Copilot CLI's camelCase payloads),
// the event the hook was configured for (--event NAME). Both are optional:
// the payload's shape decides first, the hint only where the shape cannot.
type Hint struct {
	Harness string
	Event   string
}

// Harnesses are the names a Hint and session.agent use (kinds.Harnesses).
var Harnesses = kinds.Harnesses

// KnownHarness reports whether name is one of Harnesses.
func KnownHarness(name string) bool { return kinds.KnownHarness(name) }

// eventName returns the event name as the harness gave it: the payload's
// own field, else the hint, else what the shape of a payload without one
// says (kinds.EventName: Codex's notify program, Copilot CLI's camelCase
// dialect).
func (b *builder) eventName(hint Hint) string {
	if n := b.field(keys.Event); n != "" {
		return n
	}
	if hint.Event != "" {
		return hint.Event
	}
	return kinds.EventName(b)
}

// harnessOf names the harness that sent the payload: the ordered rules of
// the dialect files (kinds.Detect).
func harnessOf(b *builder, raw string, hint Hint) string {
	return kinds.Detect(b, raw, hint.Harness)
}

// Has, Str and Null are the payload's top level as detection reads it
// (kinds.Payload).
func (b *builder) Has(key string) bool   { return b.has(key) }
func (b *builder) Str(key string) string { return b.str(key) }
func (b *builder) Null(key string) bool {
	v := b.get(key)
	return v != nil && v.Kind == strictjson.Null
}

// harnessLabel is the header's harness: the name, and the version when the
// payload gives it (spec §8: session.agent names the harness "and its
// version or model when the events say"; the dialect's Version field).
func harnessLabel(b *builder, name string) string {
	if d := kinds.Lookup(name); d != nil && d.Version != "" {
		if v := b.str(d.Version); v != "" {
			return name + " " + oneLine(redact.Clip(b.red.String(v), 64))
		}
	}
	return name
}
