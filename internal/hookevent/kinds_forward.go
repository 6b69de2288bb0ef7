package hookevent

import "github.com/logbook-project/logbook/internal/hookevent/kinds"

// KnownEvents lists the Claude Code hook events recorded by name
// (kinds.KnownEvents).
var KnownEvents = kinds.KnownEvents

// ToolKind returns the step kind of a tool call (kinds.ToolKind).
func ToolKind(tool string) string { return kinds.ToolKind(tool) }

// Canonical returns the Claude Code event name a harness's event name maps
// to, and the kind the event implies (kinds.Canonical).
func Canonical(name string) (event, kind string) { return kinds.Canonical(name) }
