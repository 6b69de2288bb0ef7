package hookconf

import (
	"sync"

	"github.com/logbook-project/logbook/internal/hookevent/kinds"
)

// Spec is one harness's hook configuration: where it lives, which events
// it wires, and how a hook entry is written there. Sources: each harness's
// hook documentation (docs/harnesses.md).
type Spec struct {
	Harness     string
	ProjectFile string // relative to the project directory
	LocalFile   string // Claude Code's uncommitted alternative (--local)
	UserFile    string // relative to the home directory; "" when the harness has no user scope
	// Root is a shell expression for the project root, as the harness runs
	// a project's hooks ("" when hooks run from the project root itself).
	Root string
	// Flat: each event holds a list of handlers (Cursor, Copilot CLI, VS
	// Code); otherwise a list of matcher groups, each with a "hooks" list
	// (Claude Code and the harnesses that copied its format).
	Flat     bool
	Skeleton []member // members of a file install creates, before "hooks"
	Events   []Event
	// Handler writes one hook handler for command cmd; seal is true for the
	// session-end hook.
	Handler func(cmd string, seal bool) node
	// CommandKey names the handler field holding the command.
	CommandKey string
	// HTTPHandler, when not nil, writes a "type": "http" handler posting
	// to url, for install --server (Claude Code); NoHTTP names the events
	// that take no HTTP hook, which get a record-step --server command.
	HTTPHandler func(url string, seal bool) node
	NoHTTP      map[string]bool
	// Notes are printed after an install: what the harness still needs.
	Notes []string
	// Fixed, when set, is every event's whole command (the start-directory
	// guard), instead of one built from Bin.
	Fixed string
	// ManagedFile is the harness's system-wide managed configuration,
	// which only root can write ("" when the harness has none that can
	// hold hooks); ManagedOnlyKey is the member that makes the harness
	// run the managed hooks only ("" when it has no such switch).
	ManagedFile, ManagedOnlyKey string
	// ManagedFiles is ManagedFile on the systems where it lives
	// elsewhere than on Linux, by GOOS (ManagedFileOn).
	ManagedFiles map[string]string
}

// ManagedFileOn is the harness's managed configuration on goos.
func (s *Spec) ManagedFileOn(goos string) string {
	if p, ok := s.ManagedFiles[goos]; ok {
		return p
	}
	return s.ManagedFile
}

// Event is one hook event the configuration wires.
type Event struct {
	Name    string
	Matcher string // "" for none
	Seal    bool   // runs logbook-seal --hook: records the event, then seals
	Named   bool   // pass --event NAME (the payload carries no event name)
}

func events(seal string, names ...string) []Event {
	out := make([]Event, 0, len(names))
	for _, n := range names {
		out = append(out, Event{Name: n, Seal: n == seal})
	}
	return out
}

func seconds(record, seal int) func(cmd string, s bool) node {
	return func(cmd string, s bool) node {
		t := record
		if s {
			t = seal
		}
		return obj(kv("type", str("command")), kv("command", str(cmd)), kv("timeout", num(t)))
	}
}

// Lookup returns the spec of the harness named, nil for none.
func Lookup(name string) *Spec { return specs()[name] }

// dialects are the harnesses install supports, each registered by its own
// file (dialect_NAME.go: where the configuration lives, the events it
// wires, how a handler is written). A constructor, not a value: the specs
// are built on first use.
var dialects = map[string]func() *Spec{}

func register(name string, spec func() *Spec) { dialects[name] = spec }

// specs lists every harness install supports, by name. It is built on
// first use, not at start-up.
var specs = sync.OnceValue(func() map[string]*Spec {
	m := make(map[string]*Spec, len(dialects))
	for name, f := range dialects {
		m[name] = f()
	}
	return m
})

// Names lists the harnesses install knows, in the order of the recorder's
// one list of harnesses (kinds.Harnesses); the user-level guard is not
// one.
func Names() []string {
	var out []string
	for _, h := range kinds.Harnesses {
		if dialects[h] != nil {
			out = append(out, h)
		}
	}
	return out
}
